import Testing

@testable import Core

@Suite("Game flow", .timeLimit(.minutes(5)))
struct GameFlowTests {
    @Test("lobby: joins, host and TV, start needs a player")
    func lobby() throws {
        var table = try Table(players: 0)
        #expect(table.game.phase == .lobby)
        #expect(throws: GameError.invalidPhase("At least one player must join before the game starts")) {
            try table.start()
        }
        let effects = try table.game.apply(.join(playerId: "p1", name: "  Anna  "), by: .box, now: table.now)
        #expect(effects.eventTypes == ["PLAYER_JOINED", "LOBBY_UPDATED"])
        #expect(table.game.players.map(\.name) == ["Anna"])
        table.players = ["p1"]
        try table.start()
        #expect(table.game.phase == .roundIntro)
    }

    @Test("start → PREPARING_ROUND → ROUND_INTRO → CLUE_LEVEL 10 after introMs")
    func intro() throws {
        var table = try Table()
        let before = table.game.version
        let effects = try table.host(.start(destinations: [Fixture.secretDestination(1)]))
        #expect(table.game.version >= before + 2, "PREPARING_ROUND and ROUND_INTRO are two versions")
        #expect(table.game.phase == .roundIntro)
        #expect(effects.eventTypes == ["MUSIC_SET", "AUDIO_PLAY", "TIMER_SYNC"])
        let deadline = try #require(table.game.nextDeadline)
        #expect(deadline.at == table.now + 3_000)
        // Not due yet.
        #expect(throws: GameError.invalidPhase("Timer \(deadline.timerId) is not due")) {
            try table.game.apply(.timerFired(timerId: deadline.timerId), by: .box, now: table.now + 2_999)
        }
        let clue = try table.fireNextTimer()
        #expect(table.game.phase == .clueLevel)
        #expect(
            clue.events(for: .player).contains(
                .cluePresent(CluePresent(levelPoints: 10, clueText: "Clue 10 of 1.", levelIndex: 1, totalLevels: 5))))
        #expect(table.game.nextDeadline == nil, "no clue timer without autoAdvance")
    }

    @Test("introMs 0 goes straight to the 10-point clue; HOST_NEXT_CLUE skips the intro")
    func skipIntro() throws {
        var table = try Table(settings: Fixture.settings { $0.introMs = 0 })
        try table.start()
        #expect(table.game.phase == .clueLevel)
        var other = try Table()
        try other.start()
        try other.host(.nextClue)
        #expect(other.game.phase == .clueLevel)
        #expect(other.game.round?.levelIndex == 0)
        #expect(other.game.timers.isEmpty)
    }

    @Test("clue levels 10 → 8 → 6 → 4 → 2 → reveal, by HOST_NEXT_CLUE and HOST_NEXT alike")
    func levels() throws {
        var table = try Table(settings: Fixture.settings { $0.introMs = 0 })
        try table.start()
        var seen = [table.game.round?.levelPoints]
        for command in [Command.nextClue, .next, .nextClue, .next] {
            try table.host(command)
            seen.append(table.game.round?.levelPoints)
        }
        #expect(seen == [10, 8, 6, 4, 2])
        let reveal = try table.host(.nextClue)
        #expect(table.game.phase == .revealDestination)
        #expect(reveal.eventTypes.contains("DESTINATION_REVEAL"))
        #expect(reveal.eventTypes.contains("DESTINATION_RESULTS"))
        #expect(reveal.eventTypes.contains("SCOREBOARD_UPDATE"))
    }

    @Test("force reveal from every clue phase")
    func forceReveal() throws {
        for setup in 0..<3 {
            var table = try Table()
            try table.start()
            if setup >= 1 { try table.host(.nextClue) }
            if setup == 2 { try table.player(0, .brakePull()) }
            try table.host(.forceReveal)
            #expect(table.game.phase == .revealDestination)
            #expect(table.game.brake == nil)
            #expect(table.game.timers.isEmpty)
        }
        var lobby = try Table()
        #expect(throws: GameError.invalidPhase("Nothing to reveal in LOBBY")) { try lobby.host(.forceReveal) }
    }

    @Test("reveal → followups → scoreboard → next round → finale → ROUND_END")
    func wholeRoundTrip() throws {
        var table = try Table(
            settings: Fixture.settings {
                $0.introMs = 0; $0.finaleMs = 11_000
            })
        try table.start()
        try table.host(.forceReveal)
        let first = try table.host(.next)
        #expect(table.game.phase == .followupQuestion)
        #expect(first.eventTypes == ["TIMER_SYNC", "MUSIC_SET", "FOLLOWUP_PRESENT", "AUDIO_PLAY"])
        #expect(table.game.round?.followup?.index == 1)
        #expect(table.game.round?.followup?.total == 2, "followupsPerDestination defaults to 2")
        // HOST_NEXT on an open followup closes it now.
        let closed = try table.host(.next)
        #expect(closed.eventTypes.starts(with: ["FOLLOWUP_LOCKED", "FOLLOWUP_RESULTS", "SCOREBOARD_UPDATE"]))
        #expect(table.game.round?.followup?.isOpen == false)
        try table.host(.next)
        #expect(table.game.round?.followup?.index == 2)
        try table.fireNextTimer()  // the followup's own deadline closes it
        #expect(table.game.round?.followup?.isOpen == false)
        try table.host(.next)
        #expect(table.game.phase == .scoreboard)
        try table.host(.next)
        #expect(table.game.phase == .clueLevel, "second destination, introMs 0")
        #expect(table.game.round?.index == 1)
        try table.host(.forceReveal)
        try table.host(.next)
        try table.host(.next)
        try table.host(.next)
        try table.host(.next)
        try table.host(.next)
        #expect(table.game.phase == .scoreboard)
        let finale = try table.host(.next)
        #expect(table.game.phase == .finalResults)
        #expect(finale.eventTypes.contains("FINAL_RESULTS_PRESENT"))
        let end = try #require(table.game.nextDeadline)
        #expect(end.at == table.now + 11_000)
        try table.fireNextTimer()
        #expect(table.game.phase == .roundEnd)
        #expect(throws: GameError.invalidPhase("Nothing comes next in ROUND_END")) { try table.host(.next) }
    }

    @Test("no followups: reveal goes straight to the scoreboard")
    func noFollowups() throws {
        var table = try Table(settings: Fixture.settings { $0.followupsPerDestination = 0 })
        try table.start()
        try table.host(.forceReveal)
        try table.host(.next)
        #expect(table.game.phase == .scoreboard)
    }

    @Test("followupsPerDestination is capped by what the destination has")
    func followupCap() throws {
        var table = try Table(settings: Fixture.settings { $0.followupsPerDestination = 3 })
        var short = Fixture.secretDestination(1)
        short.followups.removeLast()
        try table.start([short])
        #expect(table.game.round?.followupCount == 2)
    }

    @Test("HOST_NEXT in FINAL_RESULTS ends the finale early; restart goes back to the lobby at 0 points")
    func restart() throws {
        var table = try Table(
            settings: Fixture.settings {
                $0.introMs = 0; $0.followupsPerDestination = 0
            })
        try table.start([Fixture.secretDestination(1)])
        try table.player(0, .brakePull())
        try table.player(0, .brakeAnswer(answerText: "Zdestname1"))
        try table.host(.forceReveal)
        #expect(table.game.players[0].points == 10)
        #expect(throws: GameError.invalidPhase("Restart is possible once the finale has started")) {
            try table.host(.restart)
        }
        try table.host(.next)
        try table.host(.next)
        #expect(table.game.phase == .finalResults)
        try table.host(.next)
        #expect(table.game.phase == .roundEnd)
        let restarted = try table.host(.restart)
        #expect(table.game.phase == .lobby)
        // Whatever of the finale's timeline is still ahead on the room's speakers is called off.
        #expect(restarted.contains(.send(.audioStop(AudioStop()), to: .room)))
        #expect(table.game.players.count == 3)
        #expect(table.game.players.allSatisfy { $0.points == 0 })
        #expect(table.game.round == nil)
        try table.start()
        #expect(table.game.phase == .clueLevel)
        #expect(table.game.round?.index == 0)
    }

    @Test("autoAdvance plays a whole game with nobody pressing anything")
    func autoAdvance() throws {
        var table = try Table(settings: Fixture.settings { $0.autoAdvance = true })
        try table.start()
        var phases: [Phase] = [table.game.phase]
        var steps = 0
        while table.game.phase != .roundEnd, steps < 100 {
            try table.fireNextTimer()
            if phases.last != table.game.phase { phases.append(table.game.phase) }
            steps += 1
        }
        #expect(table.game.phase == .roundEnd)
        #expect(phases.first == .roundIntro)
        #expect(phases.contains(.revealDestination))
        #expect(phases.contains(.followupQuestion))
        #expect(phases.contains(.scoreboard))
        #expect(phases.contains(.finalResults))
        #expect(table.game.round?.index == 1, "both destinations were played")
    }

    @Test("commands of the wrong role are FORBIDDEN")
    func roles() throws {
        var table = try Table()
        let hostOnly: [Command] = [
            .start(destinations: [Fixture.secretDestination(1)]), .nextClue, .next, .forceReveal, .pause, .resume,
            .kick(playerId: "p1"), .restart, .setMusicGain(gainDb: -10),
        ]
        for command in hostOnly {
            for actor in [Issuer.participant("p1"), .participant("tv-1"), .participant("stranger"), .box] {
                #expect(throws: GameError.forbidden("Only the host may do that")) {
                    try table.game.apply(command, by: actor, now: table.now)
                }
            }
        }
        let playerOnly: [Command] = [
            .brakePull(), .brakeAnswer(answerText: "x"), .followupAnswer(index: 1, answerText: "x"), .leave,
        ]
        for command in playerOnly {
            for actor in [Issuer.participant("host-1"), .participant("tv-1"), .participant("stranger"), .box] {
                #expect(throws: GameError.forbidden("Only players may do that")) {
                    try table.game.apply(command, by: actor, now: table.now)
                }
            }
        }
        for command in [
            Command.join(playerId: "x", name: "X"), .claimHost("x"), .claimTv("x"), .timerFired(timerId: "t1"),
        ] {
            #expect(throws: GameError.self) {
                try table.game.apply(command, by: .participant("host-1"), now: table.now)
            }
        }
    }

    @Test("commands in the wrong phase are INVALID_PHASE and change nothing")
    func phases() throws {
        var table = try Table()
        let before = table.game
        for command in [Command.nextClue, .next, .forceReveal, .pause, .resume, .restart] {
            #expect(throws: GameError.self) { try table.host(command) }
        }
        #expect(throws: GameError.invalidPhase("No brake is waiting for an answer")) {
            try table.player(0, .brakeAnswer(answerText: "x"))
        }
        #expect(throws: GameError.invalidPhase("Followup 1 is not open for answers")) {
            try table.player(0, .followupAnswer(index: 1, answerText: "x"))
        }
        #expect(throws: GameError.invalidPhase("Timer t99 is not running")) {
            try table.game.apply(.timerFired(timerId: "t99"), by: .box, now: table.now)
        }
        #expect(table.game == before)
        try table.start()
        #expect(throws: GameError.invalidPhase("The game has already started")) { try table.start() }
    }

    @Test("start rejects an empty or broken plan")
    func badPlan() throws {
        var table = try Table()
        #expect(throws: GameError.invalidPayload("A game has 1–10 destinations, not 0")) { try table.start([]) }
        var broken = Fixture.secretDestination(1)
        broken.clues.removeLast()
        #expect(throws: GameError.invalidPayload("Every destination needs five clues worth 10, 8, 6, 4 and 2 points")) {
            try table.start([broken])
        }
    }

    @Test("music gain: host only, in range, sent to the room")
    func musicGain() throws {
        var table = try Table()
        let effects = try table.host(.setMusicGain(gainDb: -20))
        #expect(effects == [.send(.musicGainSet(MusicGain(gainDb: -20)), to: .room)])
        #expect(table.game.musicGainDb == -20)
        #expect(throws: GameError.invalidPayload("gainDb must be between -60.0 and 0.0")) {
            try table.host(.setMusicGain(gainDb: 3))
        }
    }

    @Test("end: SESSION_ENDED to all, then every command is refused")
    func end() throws {
        var table = try Table()
        try table.start()
        let effects = try table.host(.end(reason: "host_ended"))
        #expect(effects.contains(.ended(reason: "host_ended")))
        #expect(effects.events(for: .player).contains(.sessionEnded(SessionEnded(reason: "host_ended"))))
        #expect(table.game.isEnded)
        #expect(table.game.nextDeadline == nil)
        #expect(throws: GameError.sessionEnded) { try table.host(.next) }
        #expect(throws: GameError.sessionEnded) { try table.player(0, .brakePull()) }
        #expect(throws: GameError.sessionEnded) {
            try table.game.apply(.join(playerId: "p9", name: "Late"), by: .box, now: table.now)
        }
        #expect(table.game.setConnected("p1", false, now: table.now).isEmpty)
        // The box may end a session too (expiry).
        var idle = try Table()
        #expect(
            try idle.game.apply(.end(reason: "expired"), by: .box, now: idle.now).contains(.ended(reason: "expired")))
    }

    @Test(
        "a phone kicked while connected joins no more under any name; one removed while away, one that left, others do")
    func kickedDevice() throws {
        var table = try Table(players: 0)
        let join = { (table: inout Table, id: String, name: String, device: String?) in
            _ = try table.game.apply(.join(playerId: id, name: name, device: device), by: .box, now: table.now)
        }
        try join(&table, "p1", "Troll", "phone-a")
        try join(&table, "p2", "Walker", "phone-b")
        // Removed while away: that phone may come back.
        try join(&table, "p6", "Sleepy", "phone-d")
        try table.host(.kick(playerId: "p6"))
        try join(&table, "p7", "Sleepy again", "phone-d")
        try table.host(.kick(playerId: "p1", keepOut: true))
        #expect(throws: GameError.forbidden("The host removed this phone from the game")) {
            try join(&table, "p3", "Nice Person", "phone-a")
        }
        try join(&table, "p3", "Nice Person", "phone-c")
        try join(&table, "p4", "No cookie", nil)
        // Leaving is not a kick: that phone comes back.
        _ = try table.game.apply(.leave, by: .participant("p2"), now: table.now)
        try join(&table, "p5", "Walker", "phone-b")
        #expect(table.game.players.map(\.name) == ["Sleepy again", "Nice Person", "No cookie", "Walker"])
    }
}

@Suite("Kiosk rules", .timeLimit(.minutes(5)))
struct KioskRuleTests {
    @Test("the box may start and restart a game only when autoAdvance is on (a kiosk)")
    func boxStartsOnlyInKiosk() throws {
        var manual = try Table()
        #expect(throws: GameError.forbidden("Only the host may do that")) {
            try manual.game.apply(.start(destinations: [Fixture.secretDestination(1)]), by: .box, now: manual.now)
        }
        var kiosk = try Table(settings: Fixture.settings { $0.autoAdvance = true })
        _ = try kiosk.game.apply(.start(destinations: [Fixture.secretDestination(1)]), by: .box, now: kiosk.now)
        #expect(kiosk.game.phase == .roundIntro)
        try kiosk.host(.forceReveal)
        while kiosk.game.phase != .roundEnd { try kiosk.fireNextTimer() }
        _ = try kiosk.game.apply(.restart, by: .box, now: kiosk.now)
        #expect(kiosk.game.phase == .lobby && kiosk.game.players.count == 3)
    }

    @Test("a kiosk's box lets go of the players who walked away: they left")
    func absentPlayersLeave() throws {
        var kiosk = try Table(settings: Fixture.settings { $0.autoAdvance = true })
        let start = kiosk.now
        _ = kiosk.game.setConnected("p3", false, now: start)
        _ = kiosk.game.setConnected("p2", false, now: start + 1_000)
        // p3 went away first, p2 later than the first cutoff; p1 is here.
        #expect(kiosk.game.absentPlayers(since: start + 500) == ["p3"])
        #expect(kiosk.game.absentPlayers(since: start + 1_000) == ["p2", "p3"])
        let effects = try kiosk.game.apply(.kick(playerId: "p3"), by: .box, now: start + 1_000)
        #expect(effects.contains(.send(.playerLeft(PlayerLeft(playerId: "p3", reason: .left)), to: .everyone)))
        #expect(effects.contains(.revoke("p3")))
        #expect(kiosk.game.players.map(\.id) == ["p1", "p2"])
    }
}
