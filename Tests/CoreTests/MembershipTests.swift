import Testing

@testable import Core

@Suite("Joining, roles and presence")
struct MembershipTests {
    @Test(
        "names are trimmed, 1–20 characters, no control characters",
        arguments: [
            ("Anna", "Anna"), ("  Björn  ", "Björn"), ("Zoë 🎉", "Zoë 🎉"),
            (String(repeating: "x", count: 20), String(repeating: "x", count: 20)),
        ])
    func validNames(raw: String, expected: String) throws {
        #expect(try Game.validName(raw) == expected)
    }

    @Test(
        "bad names are INVALID_NAME",
        arguments: [
            "", "   ", String(repeating: "x", count: 21), "a\u{0007}b", "tab\there", "evil\u{202E}txt", "two\nlines",
        ])
    func invalidNames(raw: String) {
        #expect(throws: GameError.self) { try Game.validName(raw) }
        do {
            _ = try Game.validName(raw)
        } catch {
            #expect(error.code == .invalidName)
        }
    }

    @Test("a name is taken regardless of case")
    func nameTaken() throws {
        var table = try Table(players: 1)
        #expect(throws: GameError.nameTaken) {
            try table.game.apply(.join(playerId: "p9", name: "PLAYER 1"), by: .box, now: table.now)
        }
        #expect(table.game.players.count == 1)
    }

    @Test("SESSION_FULL above maxPlayers")
    func full() throws {
        var table = try Table(players: 2, limits: Limits(maxPlayers: 2))
        #expect(throws: GameError.sessionFull) {
            try table.game.apply(.join(playerId: "p9", name: "Nine"), by: .box, now: table.now)
        }
    }

    @Test("late join in any phase before FINAL_RESULTS, with 0 points")
    func lateJoin() throws {
        var table = try Table(
            settings: Fixture.settings {
                $0.introMs = 0; $0.followupsPerDestination = 0
            })
        try table.start([Fixture.secretDestination(1)])
        try table.player(0, .brakePull())
        try table.player(0, .brakeAnswer(answerText: "Zdestname1"))
        _ = try table.game.apply(.join(playerId: "late", name: "Late"), by: .box, now: table.now)
        #expect(table.game.players.last?.points == 0)
        try table.host(.forceReveal)
        _ = try table.game.apply(.join(playerId: "later", name: "Later"), by: .box, now: table.now)
        try table.host(.next)
        try table.host(.next)
        #expect(table.game.phase == .finalResults)
        #expect(throws: GameError.gameFinished) {
            try table.game.apply(.join(playerId: "toolate", name: "Too late"), by: .box, now: table.now)
        }
    }

    @Test("one host: the role is free again after 60 s disconnected; the old token is revoked")
    func hostGrace() throws {
        var table = try Table()
        #expect(table.game.hasHost(at: table.now))
        #expect(throws: GameError.hostRoleTaken) { try table.game.apply(.claimHost("h2"), by: .box, now: table.now) }
        _ = table.game.setConnected("host-1", false, now: table.now)
        table.advance(60_000)
        #expect(table.game.hasHost(at: table.now), "60 s is still within the grace period")
        #expect(throws: GameError.hostRoleTaken) { try table.game.apply(.claimHost("h2"), by: .box, now: table.now) }
        table.advance(1)
        #expect(!table.game.hasHost(at: table.now))
        let effects = try table.game.apply(.claimHost("h2"), by: .box, now: table.now)
        #expect(effects.contains(.revoke("host-1")))
        #expect(table.game.hostId == "h2")
        #expect(throws: GameError.forbidden("Only the host may do that")) {
            try table.game.apply(
                .start(destinations: [Fixture.secretDestination(1)]), by: .participant("host-1"), now: table.now)
        }
    }

    @Test("a host that never connects keeps the role for the grace period from its claim")
    func hostNeverConnected() throws {
        var game = Game(sessionId: "s", joinCode: "ABCDEF", joinUrl: "u", settings: Fixture.settings())
        #expect(!game.hasHost(at: 0))
        _ = try game.apply(.claimHost("h1"), by: .box, now: 1_000)
        #expect(game.hasHost(at: 61_000))
        #expect(!game.hasHost(at: 61_001))
    }

    @Test("TV: taken while connected, replaced (and revoked) when not")
    func tvReplacement() throws {
        var table = try Table()
        #expect(throws: GameError.tvRoleTaken) { try table.game.apply(.claimTv("tv-2"), by: .box, now: table.now) }
        _ = table.game.setConnected("tv-1", false, now: table.now)
        let effects = try table.game.apply(.claimTv("tv-2"), by: .box, now: table.now)
        #expect(effects.contains(.revoke("tv-1")))
        #expect(table.game.tvId == "tv-2")
        #expect(!table.game.hasTv, "the new TV has not connected yet")
    }

    @Test("kick and leave: PLAYER_LEFT, token revoked, answers gone")
    func kickAndLeave() throws {
        var table = try Table(settings: Fixture.settings { $0.introMs = 0 })
        try table.start()
        try table.player(0, .brakePull())
        try table.player(0, .brakeAnswer(answerText: "x"))
        let kicked = try table.host(.kick(playerId: "p1"))
        #expect(kicked.contains(.send(.playerLeft(PlayerLeft(playerId: "p1", reason: .kicked)), to: .everyone)))
        #expect(kicked.contains(.revoke("p1")))
        #expect(table.game.round?.locks.isEmpty == true)
        #expect(throws: GameError.forbidden("Only players may do that")) {
            try table.game.apply(.brakePull(), by: .participant("p1"), now: table.now)
        }
        #expect(throws: GameError.invalidPayload("No player nobody in this session")) {
            try table.host(.kick(playerId: "nobody"))
        }
        let left = try table.game.apply(.leave, by: .participant("p2"), now: table.now)
        #expect(left.contains(.send(.playerLeft(PlayerLeft(playerId: "p2", reason: .left)), to: .everyone)))
        #expect(table.game.players.map(\.id) == ["p3"])
        // The name is free again.
        _ = try table.game.apply(.join(playerId: "p1b", name: "Player 1"), by: .box, now: table.now)
    }

    @Test("presence: LOBBY_UPDATED only on a change; reset after a restart")
    func presence() throws {
        var table = try Table()
        #expect(table.game.setConnected("p1", true, now: table.now).isEmpty)
        let version = table.game.version
        let effects = table.game.setConnected("p1", false, now: table.now)
        #expect(effects.eventTypes == ["LOBBY_UPDATED"])
        #expect(table.game.version == version + 1)
        #expect(table.game.setConnected("stranger", true, now: table.now).isEmpty)
        table.game.resetPresence(now: table.now)
        #expect(!table.game.isConnected("host-1"))
        #expect(table.game.hasHost(at: table.now + 60_000))
        #expect(!table.game.hasHost(at: table.now + 60_001))
    }

    @Test("join codes: six letters from the safe alphabet; typing is forgiving")
    func joinCodes() {
        var generator = SplitMix64(seed: 7)
        for _ in 0..<200 {
            let code = JoinCode.random(using: &generator)
            #expect(code.count == 6)
            #expect(code.allSatisfy(JoinCode.alphabet.contains))
        }
        #expect(JoinCode.normalize("abc-def") == "ABCDEF")
        #expect(JoinCode.normalize(" ab cd ef ") == "ABCDEF")
        #expect(JoinCode.normalize("ABCDE") == nil)
        #expect(JoinCode.normalize("ABCDE1") == nil, "1 is not in the alphabet")
        #expect(JoinCode.normalize("ABCDEO") == nil, "O is not in the alphabet")
    }
}
