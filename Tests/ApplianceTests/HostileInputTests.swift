import Core
import Foundation
import NIOCore
import Testing

@testable import Appliance

/// A teenager with the dev tools open: hostile frames, forged tokens and guessed codes against a
/// running box. Nothing may crash it, every frame gets its error, and no session changes.
/// `make soak` raises the counts (TRIPTO_FUZZ_FRAMES).
@Suite("Hostile input", .timeLimit(.minutes(30)))
struct HostileInputTests {
    static var frames: Int { Int(ProcessInfo.processInfo.environment["TRIPTO_FUZZ_FRAMES"] ?? "") ?? 600 }

    /// Commands each role may send; every other command is FORBIDDEN to it, in every phase.
    static func allowed(_ message: ClientMessage, for role: Role) -> Bool {
        switch message {
        case .hello, .resumeSession, .ping, .clockEcho: true
        case .hostStartGame, .hostNextClue, .hostNext, .hostSkip, .hostForceReveal, .hostPause, .hostResume, .hostKick,
            .hostEndSession, .hostRestart, .hostEndGame, .hostSetPack, .musicGainSet:
            role == .host
        // The TV says whether its page plays the sound; the TV or the host mutes the box.
        case .soundOutputSet(let set): role == .tv || (role == .host && set.tvPage == nil)
        case .brakePull, .brakeAnswerSubmit, .followupAnswerSubmit, .playerLeave: role == .player
        }
    }

    @Test("the message decoder takes 200,000 hostile inputs without trapping, and what it accepts round-trips")
    func decoder() {
        var frames = HostileFrames(seed: 11)
        var accepted = 0
        for _ in 0..<200_000 {
            let data = Data(frames.next().utf8)
            switch Result(catching: { () throws(ClientMessage.DecodeError) in try ClientMessage.decode(data) }) {
            case .success(let message):
                accepted += 1
                #expect((try? ClientMessage.decode(message.encoded())) == message)
            case .failure:
                break
            }
        }
        // Mutations keep some messages valid; most inputs are refused.
        #expect(accepted > 100 && accepted < 100_000, "\(accepted) accepted")
    }

    @Test("hostile frames from every role: each gets its error, the box stays up, no session changes")
    func frames() async throws {
        let box = try BoxProcess()
        try await box.start()
        defer { box.terminate() }
        let table = try await LiveTable.open(box, settings: ["introMs": 0], players: ["Anna", "Björn", "Cecilia"])
        let other = try await LiveTable.open(box, players: ["Dora"], tv: false)
        table.host.send(.hostStartGame)
        try await table.allSee(.clueLevel, level: 10)
        try await Task.sleep(for: .milliseconds(300))
        let before = try await table.host.latestSnapshot()
        let otherBefore = try await other.host.latestSnapshot()

        // Every socket sends its share at 10 a second, half the per-connection rate limit (20 a second
        // after a burst of 40): a stall of up to 4 s that bunches the frames stays within the burst.
        let senders: [(TestSocket, Role)] =
            [(table.host, .host), (table.tv!, .tv)] + table.players.map { ($0.socket, .player) } + [
                (other.players[0].socket, .player)
            ]
        var generator = HostileFrames(seed: 2026)
        var expectedErrors = Array(repeating: 0, count: senders.count)
        var sent = 0
        var skipped = 0
        while sent < Self.frames {
            for (index, (socket, role)) in senders.enumerated() where sent < Self.frames {
                let text = generator.next()
                if let message = try? ClientMessage.decode(Data(text.utf8)), Self.allowed(message, for: role) {
                    // Still a command this role may send: it would be a real move, not an attack.
                    skipped += 1
                    continue
                }
                socket.sendRaw(text)
                expectedErrors[index] += 1
                sent += 1
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        for (index, (socket, _)) in senders.enumerated() {
            for _ in 0..<expectedErrors[index] {
                let error = try await socket.expect("ERROR", timeout: .seconds(20))
                let code = error.payloadObject["code"] as? String ?? ""
                #expect(["BAD_MESSAGE", "UNKNOWN_MESSAGE", "FORBIDDEN"].contains(code), "\(code)")
            }
        }
        // Binary frames and text that is not UTF-8.
        table.players[0].socket.sendBinary([0x7B, 0x22, 0xFF, 0x00])
        try await table.players[0].socket.expect("ERROR") { $0.payloadObject["code"] as? String == "BAD_MESSAGE" }
        let broken = TestSocket(url: box.webSocketURL, token: table.players[1].token)
        try await broken.expect("WELCOME")
        broken.sendRawBytes([0x7B, 0xC3, 0x28, 0x7D])
        #expect(try await broken.closeCode() == 1007)

        // The box is up, every first connection still answers, and nothing changed.
        #expect(try await table.http.get("/healthz").status == 200)
        for (socket, _) in senders {
            socket.send(.ping(.init(clientTimeMs: 7)))
            try await socket.expect("PONG")
        }
        try await Task.sleep(for: .milliseconds(300))
        let after = try await table.host.latestSnapshot()
        #expect(after.version == before.version, "the session changed: \(before.version) → \(after.version)")
        #expect(Checkpoint(after) == Checkpoint(before))
        #expect(after.lockedAnswers.isEmpty && after.clue == before.clue)
        let otherAfter = try await other.host.latestSnapshot()
        #expect(otherAfter.version == otherBefore.version)
        print("hostile input: \(sent) frames sent to the box (\(skipped) drawn that were real moves, not sent)")
        table.closeAll()
        other.closeAll()
    }

    @Test("every role can send exactly its own commands, in every phase")
    func authority() async throws {
        let box = try BoxProcess()
        try await box.start()
        defer { box.terminate() }
        // The phases with a timer (the brake's answer, the followup, the finale) are held as long
        // as settings allow: some 35 refusals, each answered, must fit in each on a loaded machine.
        let table = try await LiveTable.open(
            box,
            settings: [
                "introMs": 0, "followupsPerDestination": 1, "destinationsCount": 1, "brakeAnswerSeconds": 60,
                "followupSeconds": 120, "finaleMs": 20_000,
            ],
            players: ["Anna", "Björn"])
        let roles: [(TestSocket, Role)] = [(table.host, .host), (table.tv!, .tv), (table.players[0].socket, .player)]
        let commands: [ClientMessage] = HostileFrames.valid.filter {
            if case .resumeSession = $0 { return false }
            if case .ping = $0 { return false }
            return true
        }
        var checked = 0
        /// Sends every command a role may not send and expects FORBIDDEN for each, state unchanged.
        func refusals(in phase: Phase) async throws {
            try await table.settle()
            let before = try await table.host.latestSnapshot()
            #expect(before.phase == phase)
            for (socket, role) in roles {
                for command in commands where !Self.allowed(command, for: role) {
                    socket.send(command)
                    let error = try await socket.expect("ERROR")
                    #expect(
                        error.payloadObject["code"] as? String == "FORBIDDEN", "\(role) \(command.type) in \(phase)")
                    checked += 1
                    try await Task.sleep(for: .milliseconds(60))
                }
            }
            try await Task.sleep(for: .milliseconds(200))
            #expect(try await table.host.latestSnapshot().version == before.version)
        }
        try await refusals(in: .lobby)
        table.host.send(.hostStartGame)
        try await table.allSee(.clueLevel, level: 10)
        try await refusals(in: .clueLevel)
        let destination = try await table.destinationName()
        table.players[1].socket.send(.brakePull(.init()))
        try await table.allSee(.pausedForBrake)
        try await refusals(in: .pausedForBrake)
        table.players[1].socket.send(.brakeAnswerSubmit(.init(answerText: "Xylophonia")))
        try await table.allSee(.clueLevel, level: 8)
        table.host.send(.hostForceReveal)
        try await table.allSee(.revealDestination)
        try await refusals(in: .revealDestination)
        table.host.send(.hostNext)
        try await table.allSee(.followupQuestion)
        let correct = try #require(try await table.host.latestSnapshot().followup?.correctAnswer)
        table.players[0].socket.send(.followupAnswerSubmit(.init(index: 1, answerText: "Quokkaville")))
        try await table.host.expectSnapshot { $0.followup?.answers?.isEmpty == false }
        try await refusals(in: .followupQuestion)
        table.host.send(.hostNext)
        try await table.host.expect("FOLLOWUP_RESULTS")
        table.host.send(.hostNext)
        try await table.allSee(.scoreboard)
        try await refusals(in: .scoreboard)
        table.host.send(.hostNext)
        try await table.allSee(.finalResults)
        try await refusals(in: .finalResults)
        // Per phase: the host's 4 player commands; for the TV all 17 but its SOUND_OUTPUT_SET; for the
        // player the 13 host commands and SOUND_OUTPUT_SET.
        #expect(checked == 7 * (4 + 17 + 14))

        // On the wire, in every phase: the TV and the players heard no secret before its time, the
        // player who locked the answer included.
        for socket in [table.tv!] + table.players.map(\.socket) {
            let texts = await socket.allTexts()
            let beforeReveal = texts.prefix { !$0.contains("\"DESTINATION_REVEAL\"") }
            let beforeResults = texts.prefix { !$0.contains("\"FOLLOWUP_RESULTS\"") }
            #expect(beforeReveal.count < texts.count && beforeResults.count < texts.count)
            #expect(!beforeReveal.contains { $0.contains(destination) }, "the destination before its reveal")
            #expect(!beforeReveal.contains { $0.contains("\"answerText\"") || $0.contains("Xylophonia") })
            // (The answer itself may be among the options, so the field is what must not come.)
            #expect(!beforeResults.contains { $0.contains("\"correctAnswer\"") })
            if socket !== table.players[0].socket {
                #expect(!beforeResults.contains { $0.contains("Quokkaville") }, "another player's followup answer")
            }
            #expect(texts.contains { $0.contains("\"correctAnswer\":\"\(correct)\"") })
        }
        table.closeAll()
    }

    @Test("a caller on the network creates ten sessions at once, then two a minute")
    func createThrottle() {
        let throttle = CreateThrottle()
        let start: Int64 = 1_000_000
        // Ten at once, then two a minute; a refusal says how long until the next.
        let waits = (0..<12).map { _ in throttle.wait(for: "192.0.2.7", now: start) }
        #expect(waits == Array(repeating: nil, count: 10) + [30, 30])
        #expect(throttle.wait(for: "192.0.2.8", now: start) == nil)
        #expect(throttle.wait(for: "192.0.2.7", now: start + 20_000) == 10)
        #expect(throttle.wait(for: "192.0.2.7", now: start + 31_000) == nil)
        #expect(throttle.wait(for: "192.0.2.7", now: start + 32_000) == 28)
        // An IPv6 device counts by its /64, whichever address of it it uses.
        for host in 1...10 { #expect(throttle.wait(for: "2001:db8:1:2::\(host)", now: start) == nil) }
        #expect(throttle.wait(for: "2001:db8:1:2:aaaa::9", now: start) != nil)
        #expect(throttle.wait(for: "2001:db8:1:3::1", now: start) == nil)
    }

    @Test(
        "through the box: its LAN address is throttled, loopback is not",
        .enabled(if: PublicAddress.lanIPv4() != nil, "needs a LAN address"))
    func createThrottleThroughTheBox() async throws {
        let lan = try #require(PublicAddress.lanIPv4())
        let box = try BoxProcess(arguments: ["--host", "0.0.0.0"])
        try await box.start()
        defer { box.terminate() }
        let fromLAN = HTTP(base: "http://\(lan):\(box.port)")
        var statuses: [Int] = []
        for _ in 0..<11 { statuses.append(try await fromLAN.post("/v1/sessions").status) }
        #expect(statuses == Array(repeating: 201, count: 10) + [429])
        let refused = try await fromLAN.post("/v1/sessions")
        #expect(refused.error == "RATE_LIMITED")
        #expect((1...30).contains(Int(refused.headers["retry-after"] ?? "") ?? 0), "\(refused.headers)")
        for _ in 0..<11 { #expect(try await HTTP(base: box.baseURL).post("/v1/sessions").status == 201) }
    }

    @Test("forged tokens, another session's tokens and guessed codes get nowhere")
    func tokens() async throws {
        let box = try BoxProcess()
        try await box.start()
        defer { box.terminate() }
        let mine = try await LiveTable.open(box, players: ["Anna"])
        let theirs = try await LiveTable.open(box, players: ["Dora"])
        try await theirs.settle()
        let before = try await theirs.host.latestSnapshot()
        var random = SplitMix64(seed: 99)
        func token() -> String {
            let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
            return String((0..<mine.hostToken.count).map { _ in alphabet[Int(random.next() % 64)] })
        }
        // Sockets: random tokens, and real ones with one character changed.
        var forged = (0..<20).map { _ in token() }
        for real in [mine.hostToken, mine.tvToken, mine.players[0].token] {
            var characters = Array(real)
            characters[characters.count / 2] = characters[characters.count / 2] == "A" ? "B" : "A"
            forged.append(String(characters))
        }
        let sockets = forged.map { TestSocket(url: box.webSocketURL, token: $0) }
        for socket in sockets {
            try await socket.expect("ERROR") { $0.payloadObject["code"] as? String == "UNAUTHORIZED" }
            #expect(try await socket.closeCode() == 4001)
        }

        // REST with the wrong session's tokens.
        let http = mine.http
        let end = try await http.call(
            "DELETE", "/v1/sessions/\(theirs.sessionId)", headers: ["Authorization": "Bearer \(mine.hostToken)"])
        #expect([401, 403].contains(end.status), "\(end.status) \(end.text)")
        let byPlayer = try await http.call(
            "DELETE", "/v1/sessions/\(mine.sessionId)", headers: ["Authorization": "Bearer \(mine.players[0].token)"])
        #expect([401, 403].contains(byPlayer.status))
        let join = try await http.post(
            "/v1/sessions/\(theirs.sessionId)/join", ["name": "Mallory", "joinToken": mine.joinToken])
        #expect(join.status == 403 && join.error == "INVALID_JOIN_TOKEN")
        let tv = try await http.post("/v1/sessions/\(theirs.sessionId)/tv", ["tvJoinToken": mine.tvJoinToken])
        #expect(tv.status == 403 && tv.error == "INVALID_JOIN_TOKEN", "\(tv.status) \(tv.text)")

        // Guessed join codes: none is found, and the guesser is soon throttled.
        var statuses: [Int] = []
        for _ in 0..<40 {
            let code = String((0..<6).map { _ in Array("ABCDEFGHJKLMNPQRSTUVWXYZ23456789")[Int(random.next() % 32)] })
            guard code != mine.joinCode, code != theirs.joinCode else { continue }
            statuses.append(try await http.get("/v1/sessions/by-code/\(code)").status)
        }
        #expect(statuses.allSatisfy { $0 == 404 || $0 == 429 })
        #expect(statuses.contains(429))
        try await Task.sleep(for: .milliseconds(200))
        #expect(try await theirs.host.latestSnapshot().version == before.version)
        mine.closeAll()
        theirs.closeAll()
    }
}
