import Foundation
import Testing

/// `tripto-console` as people use it: in a terminal (tmux), against a live box.
@Suite("tripto-console in tmux", .serialized, .timeLimit(.minutes(5)))
struct LiveConsoleTests {
    /// One destination, one followup, no intro and no finale: a whole game in seconds.
    static var quickGame: [String: Any] {
        [
            "destinationsCount": 1, "followupsPerDestination": 1, "introMs": 0, "finaleMs": 0, "followupSeconds": 60,
            "brakeAnswerSeconds": 60,
        ]
    }

    static func command(_ box: LiveBox, _ arguments: String) -> String {
        "\(LiveBox.console) \(arguments) --url \(box.baseURL); echo EXIT=$?"
    }

    /// Panes "host" and "player": a host console in session `code`, then a player console named
    /// `name` that joins with the code typed as `typed`; returns once the host's list shows the player.
    static func hostAndPlayer(_ tmux: Tmux, _ box: LiveBox, code: String, typed: String, name: String) async throws {
        try tmux.open("host")
        try tmux.open("player")
        try tmux.type("host", line: command(box, "join \(code) --as host"))
        try await tmux.wait("host", forText: "Waiting for players to join.")
        try tmux.type("player", line: command(box, "join \(typed) --as player --name \(name)"))
        try await tmux.wait("player", forText: "Waiting for the host to start")
        try await tmux.wait("host", forText: "1. \(name)")
    }

    @Test("the TV's QR code, read off the terminal, is the session's join URL; a resize keeps the screen whole")
    func tvQR() async throws {
        let box = try await LiveBox.started()
        let session = try await box.session(settings: Self.quickGame)
        let tmux = Tmux()
        try tmux.open("tv")
        try tmux.type("tv", line: Self.command(box, "join \(session.code) --as tv"))
        let screen = try await tmux.wait("tv", forText: "Scan to join")
        #expect(screen.count == 24)
        #expect(try ScreenQR.decode(screen) == session.joinUrl)
        #expect(screen.contains { $0.contains("Code: \(session.code)") })

        try tmux.resize("tv", width: 100, height: 30)
        let wide = try await tmux.wait("tv", for: "a 100×30 frame") { lines in
            lines.count == 30 && lines.last!.contains("q or Ctrl-C leaves")
        }
        #expect(wide[0].contains("TRIPTO · TV · code \(session.code)"))
        #expect(wide.allSatisfy { $0.count <= 100 })
        #expect(try ScreenQR.decode(wide) == session.joinUrl)

        try tmux.resize("tv", width: 50, height: 14)
        try await tmux.wait("tv", for: "the small frame without a QR") { lines in
            lines.count == 14 && lines.contains { $0.contains("make the terminal larger") }
        }
        try tmux.resize("tv", width: 80, height: 24)
        let back = try await tmux.wait("tv", forText: "Scan to join")
        #expect(try ScreenQR.decode(back) == session.joinUrl)
        try tmux.keys("tv", "q")
        try await tmux.wait("tv", forText: "EXIT=0")
    }

    @Test("a player plays a round from the console (brake, answer, followup) and the host console shows the points")
    func playRound() async throws {
        let box = try await LiveBox.started()
        let session = try await box.session(settings: Self.quickGame)
        let tmux = Tmux()
        try await Self.hostAndPlayer(tmux, box, code: session.code, typed: session.code.lowercased(), name: "Ada")
        try await tmux.wait("host", forText: "Press s to start the game.")

        try tmux.keys("host", "s")
        let hostClue = try await tmux.wait("host", forText: "Destination: ")
        let destination = try #require(
            hostClue.first { $0.hasPrefix("Destination: ") }?.dropFirst("Destination: ".count)
                .split(separator: ",").first.map(String.init))
        try await tmux.wait("player", forText: "Clue 1 of 5 · 10 points")

        // The brake, then the answer.
        try tmux.keys("player", "Space")
        try await tmux.wait("player", forText: "You pulled the brake!")
        try await tmux.wait("host", forText: "BRAKE! Ada pulled the brake at 10 points")
        try tmux.keys("player", destination, literal: true)
        try tmux.keys("player", "Enter")
        try await tmux.wait("player", forText: "Your answer is locked at 10 points.")
        try await tmux.wait("host", forText: "Ada at 10 p: \(destination)")

        // The host reveals; the player sees the points.
        try tmux.keys("host", "r")
        try await tmux.wait("player", forText: "right, +10")
        try tmux.keys("host", "Space")
        let followup = try await tmux.wait("host", forText: "Correct answer: ")
        let correct = try #require(
            followup.first { $0.hasPrefix("Correct answer: ") }?.dropFirst("Correct answer: ".count)
                .trimmingCharacters(in: .whitespaces))
        try await tmux.wait("player", forText: "Followup 1 of 1")
        try tmux.keys("player", correct, literal: true)
        try tmux.keys("player", "Enter")
        try await tmux.wait("host", forText: "Ada: \(correct)")

        // Closing the followup scores it; then the scoreboard.
        try tmux.keys("host", "Space")
        try await tmux.wait("player", forText: "right, +2")
        try tmux.keys("host", "Space")
        try await tmux.wait("host", for: "Ada with 12 points on the scoreboard") { lines in
            lines.contains { $0.contains("1. Ada") && $0.hasSuffix("12 p") }
        }
        try await tmux.wait("player", forText: "Ada · 12 points · place 1 of 1")

        // Ctrl-C leaves a clean terminal: the normal screen, the cursor, a cooked tty that echoes.
        try tmux.keys("player", "C-c")
        try await tmux.wait("player", forText: "EXIT=130")
        #expect(try tmux.format("player", "#{alternate_on} #{cursor_flag}") == "0 1")
        try tmux.type("player", line: "stty -a | tr ' ' '\\n' | grep -x -e icanon -e echo -e isig | tr '\\n' ' '")
        try await tmux.wait("player", forText: "isig icanon echo")
        try tmux.keys("host", "q")
        try await tmux.wait("host", forText: "EXIT=0")
    }

    /// The host console (pane "host") kicks its first player.
    static func kickFirstPlayer(_ tmux: Tmux) async throws {
        try tmux.keys("host", "x")
        try await tmux.wait("host", forText: "Kick which player?")
        try tmux.keys("host", "1")
    }

    @Test("a wrong code and a taken seat end with a clear message and status 2")
    func refusals() async throws {
        let box = try await LiveBox.started()
        let session = try await box.session(settings: Self.quickGame)
        let tmux = Tmux()
        try tmux.open("shell")
        try tmux.type("shell", line: Self.command(box, "join ZZZZ22 --as player --name Bo"))
        try await tmux.wait("shell", forText: "Session not found or expired")
        try await tmux.wait("shell", forText: "EXIT=2")

        let id = try await sessionId(box, session.code)
        let (status, _) = try await box.call(
            "POST", "/v1/sessions/\(id)/join", ["role": "HOST", "joinCode": session.code])
        #expect(status == 201)
        try tmux.type("shell", line: "clear; " + Self.command(box, "join \(session.code) --as host"))
        try await tmux.wait("shell", forText: "This session already has a host.")
        try await tmux.wait("shell", forText: "EXIT=2")
    }

    @Test("without a terminal every seat command says so and leaves with 64 before asking the box for anything")
    func noTerminal() async throws {
        let box = try await LiveBox.started()
        let session = try await box.session(settings: Self.quickGame)
        let tmux = Tmux()
        try tmux.open("shell", width: 200)
        for arguments in [
            "join \(session.code) --as player --name Zed </dev/null", "join \(session.code) --as host >/dev/null",
            "create --as tv </dev/null",
        ] {
            try tmux.type("shell", line: "clear; " + Self.command(box, arguments))
            let screen = try await tmux.wait("shell", for: "the exit status") { $0.contains { $0.hasPrefix("EXIT=") } }
            #expect(
                screen.contains {
                    $0.hasPrefix("tripto-console: This command plays a seat full screen and needs a terminal")
                })
            #expect(!screen.contains { $0.contains("Unexpected") })
            #expect(screen.contains("EXIT=64"), "\(arguments)")
        }
        try tmux.type("shell", line: "clear; \(LiveBox.console) kiosk --url \(box.baseURL) </dev/null; echo EXIT=$?")
        try await tmux.wait("shell", forText: "EXIT=64")
        // Zed was not added, and the host seat is still free.
        let (_, lookup) = try await box.call("GET", "/v1/sessions/by-code/\(session.code)")
        #expect(lookup["playerCount"] as? Int == 0, "\(lookup)")
        #expect(lookup["hasHost"] as? Bool == false, "\(lookup)")
    }

    @Test("without --url and without mDNS the console says it cannot look for boxes: 2, as for none found; discover 1")
    func cannotLook() async throws {
        let tmux = Tmux()
        try tmux.open("shell", width: 200)
        // avahi is asked over the system D-Bus: one that is not there is avahi-daemon not running.
        let noBus = "DBUS_SYSTEM_BUS_ADDRESS=unix:path=/nonexistent"
        try tmux.type("shell", line: "\(noBus) \(LiveBox.console) join ABC234 --name Ada; echo EXIT=$?")
        let screen = try await tmux.wait("shell", for: "the exit status") { $0.contains { $0.hasPrefix("EXIT=") } }
        #expect(screen.contains { $0.hasPrefix("tripto-console: Cannot look for boxes on the network (") })
        #expect(screen.contains { $0.contains("Give the box's address with --url http://HOST:PORT.") })
        #expect(!screen.contains { $0.contains("Unexpected") })
        #expect(screen.contains("EXIT=2"))
        try tmux.type("shell", line: "clear; \(noBus) \(LiveBox.console) discover --timeout 1; echo EXIT=$?")
        try await tmux.wait("shell", forText: "tripto-console: cannot look for boxes on the network")
        try await tmux.wait("shell", forText: "EXIT=1")
    }

    @Test(
        "a lost box shows offline; the console reconnects by itself with the same seat when it is back; closed, the same command takes the seat again"
    )
    func reconnect() async throws {
        let box = try await LiveBox.started()
        let session = try await box.session(settings: Self.quickGame)
        let tmux = Tmux()
        try tmux.open("player")
        try tmux.type("player", line: Self.command(box, "join \(session.code) --as player --name Cy"))
        try await tmux.wait("player", forText: "Waiting for the host to start")
        await box.kill()
        try await tmux.wait("player", forText: "offline — reconnecting…")
        try await box.start()
        try await tmux.wait("player", timeout: 20, for: "online again, still Cy") { lines in
            lines[0].hasSuffix("online") && !lines[0].contains("offline")
                && lines.contains { $0.hasPrefix("Cy · 0 points") }
        }
        try tmux.keys("player", "C-c")
        try await tmux.wait("player", forText: "EXIT=130")

        // Closed (an ssh session dropped): the same command takes the same seat, not a second one.
        try tmux.type("player", line: "clear; " + Self.command(box, "join \(session.code) --as player --name Cy"))
        try await tmux.wait("player", timeout: 20, for: "Cy's seat again") { lines in
            lines.contains { $0.hasPrefix("Cy · 0 points") }
        }
        let (_, lookup) = try await box.call("GET", "/v1/sessions/by-code/\(session.code)")
        #expect(lookup["playerCount"] as? Int == 1, "\(lookup)")
        try tmux.keys("player", "C-c")
        try await tmux.wait("player", forText: "EXIT=130")
    }

    @Test("a player kicked from the host console is told so and leaves with status 1")
    func kicked() async throws {
        let box = try await LiveBox.started()
        let session = try await box.session(settings: Self.quickGame)
        let tmux = Tmux()
        try await Self.hostAndPlayer(tmux, box, code: session.code, typed: session.code, name: "Dag")
        try await Self.kickFirstPlayer(tmux)
        // The message wraps at 80 columns; its start is on one line.
        try await tmux.wait("player", forText: "tripto-console: The box closed this seat")
        try await tmux.wait("player", forText: "EXIT=1")
        try await tmux.wait("host", forText: "Waiting for players to join.")
        try tmux.keys("host", "q")
        try await tmux.wait("host", forText: "EXIT=0")
    }

    @Test("a kept seat the box no longer knows (removed while the console was closed) gives way to a new one")
    func keptSeatRemoved() async throws {
        let box = try await LiveBox.started()
        let session = try await box.session(settings: Self.quickGame)
        let tmux = Tmux()
        try await Self.hostAndPlayer(tmux, box, code: session.code, typed: session.code, name: "Eve")
        try tmux.keys("player", "C-c")
        try await tmux.wait("player", forText: "EXIT=130")
        try await Self.kickFirstPlayer(tmux)
        try await tmux.wait("host", forText: "Waiting for players to join.")

        try tmux.type("player", line: "clear; " + Self.command(box, "join \(session.code) --as player --name Eve"))
        try await tmux.wait("player", forText: "Waiting for the host to start")
        try await tmux.wait("host", forText: "1. Eve")
        try tmux.keys("player", "C-c")
        try await tmux.wait("player", forText: "EXIT=130")
    }

    @Test("the kiosk command shows a --kiosk box's TV, QR code and all")
    func kiosk() async throws {
        let box = try await LiveBox.started(arguments: ["--kiosk"])
        let tmux = Tmux()
        try tmux.open("screen")
        try tmux.type("screen", line: "\(LiveBox.console) kiosk --url \(box.baseURL); echo EXIT=$?")
        let screen = try await tmux.wait("screen", forText: "Scan to join")
        let (_, seat) = try await box.call("GET", "/v1/kiosk")
        let code = try #require(seat["joinCode"] as? String)
        #expect(screen[0].contains("TRIPTO · TV · code \(code)"))
        let decoded = try #require(try ScreenQR.decode(screen))
        #expect(decoded.contains("/join/\(try #require(seat["sessionId"] as? String))?t="))
        try tmux.keys("screen", "C-c")
        try await tmux.wait("screen", forText: "EXIT=130")
    }

    @Test("the kiosk command says what it waits for: a box not up yet (then shows it), a box without --kiosk")
    func kioskWaiting() async throws {
        let box = try await LiveBox.started(arguments: ["--kiosk"])
        await box.kill()
        let tmux = Tmux()
        try tmux.open("screen", width: 120)
        try tmux.type("screen", line: "\(LiveBox.console) kiosk --url \(box.baseURL); echo EXIT=$?")
        try await tmux.wait(
            "screen", forText: "tripto-console: waiting for the box at \(box.baseURL) (not reachable yet)…")
        try await box.start()
        try await tmux.wait("screen", timeout: 20, forText: "Scan to join")
        try tmux.keys("screen", "C-c")
        try await tmux.wait("screen", forText: "EXIT=130")

        let plain = try await LiveBox.started()
        try tmux.type("screen", line: "clear; \(LiveBox.console) kiosk --url \(plain.baseURL); echo EXIT=$?")
        try await tmux.wait(
            "screen", forText: "tripto-console: this box is not running --kiosk (start it with tripto serve --kiosk)")
        try tmux.keys("screen", "C-c")
        try await tmux.wait("screen", forText: "EXIT=130")
    }

    @Test(
        "a kiosk's player is told the game starts by itself; one who joins while its game is finishing waits for the next lobby"
    )
    func kioskGameFinished() async throws {
        // A game of one destination without followups, played by the box at 50 times the pace. The
        // lobby (where Ada's line shows) and the end (when Bo joins) last long enough for a console
        // to start on a loaded machine.
        let settings = #"{"destinationsCount":1,"followupsPerDestination":0,"introMs":0,"finaleMs":0}"#
        let box = try await LiveBox.started(arguments: [
            "--kiosk", "--kiosk-settings", settings, "--kiosk-lobby-seconds", "8", "--kiosk-end-seconds", "15",
            "--auto-pace", "0.02",
        ])
        let (_, seat) = try await box.call("GET", "/v1/kiosk")
        let code = try #require(seat["joinCode"] as? String)
        let tmux = Tmux()
        try tmux.open("ada")
        try tmux.open("bo")
        try tmux.type("ada", line: Self.command(box, "join \(code) --name Ada"))
        try await tmux.wait("ada", forText: "You are in! The game starts by itself once players are here.")
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            let (_, lookup) = try await box.call("GET", "/v1/sessions/by-code/\(code)")
            if ["FINAL_RESULTS", "ROUND_END"].contains(lookup["phase"] as? String) { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        try tmux.type("bo", line: Self.command(box, "join \(code) --name Bo"))
        try await tmux.wait("bo", forText: "tripto-console: the game has just finished; joining as soon as")
        try await tmux.wait("bo", timeout: 45, forText: "Bo · 0 points")
        let (_, lookup) = try await box.call("GET", "/v1/sessions/by-code/\(code)")
        #expect(lookup["playerCount"] as? Int == 2, "\(lookup)")
        for pane in ["ada", "bo"] {
            try tmux.keys(pane, "C-c")
            try await tmux.wait(pane, forText: "EXIT=130")
        }
    }

    private func sessionId(_ box: LiveBox, _ code: String) async throws -> String {
        let (_, json) = try await box.call("GET", "/v1/sessions/by-code/\(code)")
        return try #require(json["sessionId"] as? String)
    }
}
