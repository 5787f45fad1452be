import Core
import QR
import Testing

@testable import Console

/// The renderer on its own: every screen fits the terminal, and the TV's QR code is drawn whole.
@Suite("console screens", .timeLimit(.minutes(5)))
struct ScreenTests {
    static let sizes = [(80, 24), (120, 40), (40, 12), (200, 60)]

    @Test("every phase of every role fits the terminal, line by line", arguments: Role.allCases)
    func everyScreenFits(role: Role) {
        for phase in Phase.allCases {
            var state = Fixture.state(role, Fixture.projection(phase))
            state.notice = "A notice that is rather long, longer than some terminals are wide, to see it cut off"
            for (width, height) in Self.sizes {
                let lines = Screen.render(state, width: width, height: height, now: Fixture.now)
                #expect(lines.count == height, "\(role) \(phase) \(width)×\(height)")
                for line in lines {
                    #expect(line.count <= width, "\(role) \(phase) \(width)×\(height): \(line)")
                }
            }
        }
    }

    @Test("the TV lobby at 80×24 draws the join QR whole, module by module, next to the code and link")
    func lobbyQR() throws {
        let state = Fixture.state(.tv, Fixture.projection(.lobby))
        let lines = Screen.render(state, width: 80, height: 24, now: Fixture.now)
        let code = try QRCode(Fixture.joinUrl, correction: .low)
        let drawn = code.terminalLines(quietZone: 2)
        // The QR starts on the third line (below the title and its rule), at the left edge.
        let picture = lines[2..<(2 + drawn.count)].map { String($0.prefix(drawn[0].count)) }
        #expect(Array(picture) == drawn)
        // And the picture is the code: two modules per character, light where the cell is lit.
        for y in 0..<code.size {
            for x in 0..<code.size {
                let cell = Array(picture[(y + 2) / 2])[x + 2]
                let lit = (y + 2) % 2 == 0 ? "▀█".contains(cell) : "▄█".contains(cell)
                #expect(lit == !code.isDark(x: x, y: y), "module \(x),\(y)")
            }
        }
        let text = lines.joined(separator: "\n")
        #expect(text.contains("Code: ABC234"))
        #expect(text.contains("Player 1"))
    }

    @Test(
        "a TV without a host says how to get one (a kiosk's: that the game starts by itself), beside the QR or without it"
    )
    func tvHostNote() throws {
        let noHost = Fixture.projection(.lobby) { $0["hasHost"] = false }
        let kiosk = Fixture.projection(.lobby) {
            $0["hasHost"] = false
            var settings = $0["settings"] as! [String: Any]
            settings["autoAdvance"] = true
            $0["settings"] = settings
        }
        // Beside the QR (a wide side, so the note is on one line), and without it.
        let note = "No host yet — join as host with the code ABC234."
        let wide = Screen.render(Fixture.state(.tv, noHost), width: 120, height: 40, now: Fixture.now)
        #expect(wide.contains { $0.contains("▀") && $0.hasSuffix(note) }, "\(wide)")
        let small = Screen.render(Fixture.state(.tv, noHost), width: 40, height: 12, now: Fixture.now)
        #expect(small.map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ").contains(note))
        for projection in [Fixture.projection(.lobby), kiosk] {
            for (width, height) in [(120, 40), (40, 12)] {
                let text = Screen.render(Fixture.state(.tv, projection), width: width, height: height, now: Fixture.now)
                #expect(!text.joined().contains("No host yet"))
            }
        }
        let kioskScreen = Screen.render(Fixture.state(.tv, kiosk), width: 120, height: 40, now: Fixture.now)
        #expect(
            kioskScreen.contains { $0.hasSuffix("The game starts by itself shortly after the first player joins.") })
        // At 80×24 the note takes lines of its own beside the QR, which stays whole.
        let drawn = try QRCode(Fixture.joinUrl, correction: .low).terminalLines(quietZone: 2)
        for projection in [noHost, kiosk] {
            let lines = Screen.render(Fixture.state(.tv, projection), width: 80, height: 24, now: Fixture.now)
            #expect(lines[2..<(2 + drawn.count)].map { String($0.prefix(drawn[0].count)) } == drawn)
        }
    }

    @Test("a terminal too small for the QR shows the link and code instead of a broken code")
    func smallTerminal() {
        let state = Fixture.state(.tv, Fixture.projection(.lobby))
        let lines = Screen.render(state, width: 40, height: 12, now: Fixture.now)
        #expect(!lines.joined().contains("▀"))
        #expect(lines.joined().contains("ABC234"))
    }

    @Test("the brake banner names who pulled it and counts down")
    func brakeBanner() {
        let projection = Fixture.projection(.pausedForBrake) {
            $0["brake"] = ["brakeOwnerPlayerId": "p_1", "levelPoints": 8, "deadlineServerMs": Fixture.now + 12_000]
        }
        let tv = Screen.render(Fixture.state(.tv, projection), width: 80, height: 24, now: Fixture.now)
        #expect(tv.contains { $0.contains("BRAKE! Player 2 pulled the brake at 8 points") && $0.contains("12 s") })
        let owner = Screen.render(
            Fixture.state(.player, projection, playerId: "p_1"), width: 80, height: 24, now: Fixture.now)
        #expect(owner.contains { $0.contains("You pulled the brake!") })
        #expect(owner.contains { $0.hasPrefix("> _") })

        // Paused: the answer's timer stands at what is left, whatever the old deadline says.
        let paused = Fixture.projection(.pausedForBrake) {
            $0["paused"] = true
            $0["brake"] = ["brakeOwnerPlayerId": "p_1", "levelPoints": 8, "deadlineServerMs": Fixture.now - 3_000]
            $0["timers"] = [
                [
                    "timerId": "t9", "startAtServerMs": Fixture.now - 18_000, "durationMs": 15_000,
                    "phase": "PAUSED_FOR_BRAKE", "remainingMs": 7_000,
                ]
            ]
        }
        let frozen = Screen.render(Fixture.state(.tv, paused), width: 80, height: 24, now: Fixture.now)
        #expect(frozen.contains { $0.contains("BRAKE!") && $0.contains("7 s") }, "\(frozen)")
    }

    @Test("the host sees the destination and the locked answers with their text")
    func hostProView() {
        let projection = Fixture.projection(.clueLevel) {
            $0["round"] = ["index": 1, "total": 3, "destination": ["name": "Visby", "country": "Sverige"]]
            $0["lockedAnswers"] = [["playerId": "p_2", "lockedAtLevelPoints": 10, "answerText": "Visby"]]
        }
        let lines = Screen.render(Fixture.state(.host, projection), width: 80, height: 24, now: Fixture.now)
        #expect(lines.contains { $0.contains("Destination: Visby, Sverige") })
        #expect(lines.contains { $0.contains("Player 3 at 10 p: Visby") })
        // The help line wraps onto two lines at 80 columns, keeping every key.
        #expect(lines.suffix(2).joined(separator: "  ") == ConsoleState.hostKeys(paused: false).joined(separator: "  "))
        #expect(ConsoleState.hostHelp.contains("p pause/resume"))
        let paused = Fixture.projection(.clueLevel) { $0["paused"] = true }
        let pausedLines = Screen.render(Fixture.state(.host, paused), width: 80, height: 24, now: Fixture.now)
        #expect(pausedLines.suffix(2).joined().contains("p resume"))
        #expect(!pausedLines.suffix(2).joined().contains("p pause"))
    }

    @Test("a player in a kiosk's lobby (no host, the box plays it) is told the game starts by itself")
    func kioskLobby() {
        let kiosk = Fixture.projection(.lobby) {
            $0["hasHost"] = false
            var settings = $0["settings"] as! [String: Any]
            settings["autoAdvance"] = true
            $0["settings"] = settings
        }
        let lines = Screen.render(Fixture.state(.player, kiosk), width: 80, height: 24, now: Fixture.now)
        #expect(lines.contains { $0.contains("You are in! The game starts by itself once players are here.") })
        #expect(!lines.joined().contains("host"))
        let hosted = Screen.render(
            Fixture.state(.player, Fixture.projection(.lobby)), width: 80, height: 24, now: Fixture.now)
        #expect(hosted.contains { $0.contains("You are in! Waiting for the host to start.") })
    }

    @Test(
        "a player's help line offers the brake only while a pull can work: not once their answer is locked, not paused")
    func playerHelpLine() {
        let brake = "Space or Enter pulls the brake · Ctrl-C leaves"
        let clue = Screen.render(
            Fixture.state(.player, Fixture.projection(.clueLevel)), width: 80, height: 24, now: Fixture.now)
        #expect(clue.last == brake)
        let locked = Fixture.projection(.clueLevel) {
            $0["lockedAnswers"] = [["playerId": "p_0", "lockedAtLevelPoints": 10]]
        }
        let lockedLines = Screen.render(Fixture.state(.player, locked), width: 80, height: 24, now: Fixture.now)
        #expect(lockedLines.last == "Your answer is locked · Ctrl-C leaves")
        let paused = Fixture.projection(.clueLevel) { $0["paused"] = true }
        let pausedLines = Screen.render(Fixture.state(.player, paused), width: 80, height: 24, now: Fixture.now)
        #expect(pausedLines.last == "The game is paused · Ctrl-C leaves")
    }

    @Test("a followup result without an answer says so")
    func followupNoAnswer() {
        let projection = Fixture.projection(.followupQuestion) {
            var followup = $0["followup"] as! [String: Any]
            followup["isOpen"] = false
            followup["correctAnswer"] = "1995"
            followup["results"] = [["playerId": "p_1", "isCorrect": false, "pointsAwarded": 0]]
            $0["followup"] = followup
        }
        let lines = Screen.render(Fixture.state(.tv, projection), width: 80, height: 24, now: Fixture.now)
        #expect(lines.contains("  Player 2: no answer — wrong"), "\(lines)")
    }

    @Test("the host's players are numbered in the lobby, and after x the numbered list comes first, whatever the clue")
    func hostPlayersNumbered() {
        let lobby = Screen.render(
            Fixture.state(.host, Fixture.projection(.lobby)), width: 80, height: 24, now: Fixture.now)
        #expect(lobby.contains("  1. Player 1  10 p"), "\(lobby)")
        let busy = Fixture.projection(.pausedForBrake, players: 9) {
            $0["round"] = ["index": 1, "total": 3, "destination": ["name": "Visby", "country": "Sverige"]]
            $0["brake"] = ["brakeOwnerPlayerId": "p_8", "levelPoints": 8, "deadlineServerMs": Fixture.now + 9000]
            $0["lockedAnswers"] = (0..<8).map {
                ["playerId": "p_\($0)", "lockedAtLevelPoints": 8, "answerText": "Visby"]
            }
        }
        var state = Fixture.state(.host, busy)
        _ = state.press(.character("x"))
        let lines = Screen.render(state, width: 80, height: 24, now: Fixture.now)
        for number in 1...9 { #expect(lines.contains { $0.hasPrefix("  \(number). Player \(number) ") }, "\(lines)") }
    }

    @Test("offline is shown in the title and above the help line")
    func offline() {
        var state = Fixture.state(.player, Fixture.projection(.lobby))
        state.link = .offline(attempt: 2)
        let lines = Screen.render(state, width: 80, height: 24, now: Fixture.now)
        #expect(lines[0].hasSuffix("offline — reconnecting…"))
        #expect(lines.contains("Offline — reconnecting to the box…"))
    }

    @Test("the ended session is said plainly, its reason in words")
    func ended() {
        var state = Fixture.state(.tv, Fixture.projection(.scoreboard))
        state.receive(
            ServerMessage(
                sessionId: "s", serverTimeMs: Fixture.now, event: .sessionEnded(SessionEnded(reason: "host_ended"))),
            now: Fixture.now)
        let lines = Screen.render(state, width: 80, height: 24, now: Fixture.now)
        #expect(lines.contains { $0.contains("The session has ended: the host ended the game.") })
        #expect(Screen.ended("expired") == "The session has ended: closed after a while without players.")
        #expect(Screen.ended("ended") == "The session has ended.")
        #expect(Screen.ended("something_new") == "The session has ended.")
    }

    @Test("long words (links) are cut into lines; paragraphs wrap at spaces")
    func wrapping() {
        #expect(Page.wrap("abcdefghij", width: 4) == ["abcd", "efgh", "ij"])
        #expect(Page.wrap("one two three", width: 7) == ["one two", "three"])
        #expect(Page.fit("abcdef", 4) == "abc…")
    }
}
