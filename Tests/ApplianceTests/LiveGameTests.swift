import Core
import Foundation
import Testing

/// Whole games against a running box over real sockets.
@Suite("Live game", .serialized, .timeLimit(.minutes(5)))
struct LiveGameTests {
    let box: BoxProcess

    init() async throws {
        box = try BoxProcess()
        try await box.start()
    }

    /// No intro and a short finale. The timers the tests answer against are long enough for a
    /// machine loaded by the whole suite's start: the followup's closes by itself in `fullGame`.
    static var quick: [String: Any] {
        [
            "introMs": 0, "destinationsCount": 2, "followupsPerDestination": 1, "followupSeconds": 15,
            "brakeAnswerSeconds": 60,
            "finaleMs": 1500,
        ]
    }

    @Test("a full game: clues, brake, secret answers, host override, reveal, timed followups, finale")
    func fullGame() async throws {
        let table = try await LiveTable.open(box, settings: Self.quick)
        let (anna, bjorn, cecilia) = (table.players[0], table.players[1], table.players[2])
        let tv = try #require(table.tv)

        table.host.send(.hostStartGame)
        try await anna.socket.expect("CLUE_PRESENT") { $0.payloadObject["levelPoints"] as? Int == 10 }
        try await table.allSee(.clueLevel, level: 10)
        let name = try await table.destinationName()

        // Anna brakes and answers right; only the host learns what she said.
        anna.socket.send(.brakePull(.init(atClientMs: 1)))
        for socket in table.everyone {
            try await socket.expect("BRAKE_ACCEPTED") { $0.payloadObject["brakeOwnerPlayerId"] as? String == anna.id }
        }
        anna.socket.send(.brakeAnswerSubmit(.init(answerText: name)))
        let hostLock = try await table.host.expect("BRAKE_ANSWER_LOCKED")
        #expect(hostLock.payloadObject["answerText"] as? String == name)
        #expect(hostLock.payloadObject["lockedAtLevelPoints"] as? Int == 10)
        for socket in [tv, bjorn.socket, anna.socket] {
            let lock = try await socket.expect("BRAKE_ANSWER_LOCKED")
            #expect(lock.payloadObject["answerText"] == nil)
        }
        try await table.allSee(.clueLevel, level: 8)

        // Cecilia's pull on the 10-point clue arrives late: refused, not won on a clue she never saw.
        cecilia.socket.send(.brakePull(.init(levelPoints: 10)))
        try await cecilia.socket.expect("BRAKE_REJECTED") { $0.payloadObject["reason"] as? String == "not_allowed" }

        // Björn brakes; the host overrides with the next clue.
        bjorn.socket.send(.brakePull(.init(levelPoints: 8)))
        try await table.host.expectSnapshot { $0.phase == .pausedForBrake && $0.brake?.brakeOwnerPlayerId == bjorn.id }
        table.host.send(.hostNextClue)
        try await table.allSee(.clueLevel, level: 6)
        let afterOverride = try await bjorn.socket.latestSnapshot()
        #expect(afterOverride.clue?.levelPoints == 6)
        #expect(afterOverride.brake == nil)
        #expect(afterOverride.you?.hasLockedAnswer == false)

        table.host.send(.hostNextClue)
        try await table.allSee(.clueLevel, level: 4)
        table.host.send(.hostNextClue)
        try await table.allSee(.clueLevel, level: 2)
        table.host.send(.hostNextClue)
        let reveal = try await tv.expect("DESTINATION_REVEAL")
        #expect(reveal.payloadObject["destinationName"] as? String == name)
        let results = try await cecilia.socket.expect("DESTINATION_RESULTS")
        let rows = results.payloadObject["results"] as? [[String: Any]] ?? []
        #expect(rows.count == 1)
        #expect(rows.first?["playerId"] as? String == anna.id)
        #expect(rows.first?["isCorrect"] as? Bool == true)
        #expect(rows.first?["pointsAwarded"] as? Int == 10)
        try await table.allSee(.revealDestination)

        // Nothing secret reached the TV or a player before the reveal.
        for socket in [tv, anna.socket, bjorn.socket, cecilia.socket] {
            let texts = await socket.allTexts()
            let before = texts.prefix { !$0.contains("\"DESTINATION_REVEAL\"") }
            #expect(!before.contains { $0.contains(name) }, "the destination leaked before its reveal")
            #expect(before.count < texts.count)
        }
        // Sound cues go to the TV only.
        #expect(await tv.allTexts().contains { $0.contains("\"MUSIC_SET\"") })
        #expect(await tv.allTexts().contains { $0.contains("\"AUDIO_PLAY\"") && $0.contains("/assets/") })
        #expect(!(await anna.socket.allTexts()).contains { $0.contains("\"SFX_PLAY\"") })

        // The followup closes on the server's own timer; Cecilia's right answer scores 2.
        table.host.send(.hostNext)
        let present = try await cecilia.socket.expect("FOLLOWUP_PRESENT")
        #expect((present.payloadObject["timer"] as? [String: Any])?["durationMs"] as? Int == 15_000)
        let hostView = try await table.host.expectSnapshot { $0.followup?.correctAnswer != nil }
        let answer = try #require(hostView.followup?.correctAnswer)
        let playerView = try await cecilia.socket.expectSnapshot { $0.phase == .followupQuestion }
        #expect(playerView.followup?.correctAnswer == nil)
        #expect(!(await cecilia.socket.allTexts()).contains { $0.contains("\"correctAnswer\":\"\(answer)\"") })
        cecilia.socket.send(.followupAnswerSubmit(.init(index: 1, answerText: answer)))
        bjorn.socket.send(.followupAnswerSubmit(.init(index: 1, answerText: "no idea")))
        try await tv.expect("FOLLOWUP_LOCKED", timeout: .seconds(25))
        let followupResults = try await tv.expect("FOLLOWUP_RESULTS")
        #expect(followupResults.payloadObject["correctAnswer"] as? String == answer)
        let scored = try await cecilia.socket.expectSnapshot { $0.followup?.isOpen == false }
        #expect(scored.you?.points == 2)
        #expect(scored.followup?.correctAnswer == answer)

        table.host.send(.hostNext)
        try await table.allSee(.scoreboard)
        table.host.send(.hostNext)
        let second = try await table.host.expectSnapshot { $0.phase == .clueLevel && $0.round?.index == 2 }
        #expect(second.round?.total == 2)
        table.host.send(.hostForceReveal)
        try await table.allSee(.revealDestination)
        table.host.send(.hostNext)
        try await table.allSee(.followupQuestion)
        table.host.send(.hostNext)  // closes it now
        try await tv.expect("FOLLOWUP_RESULTS")
        table.host.send(.hostNext)
        try await table.allSee(.scoreboard)
        table.host.send(.hostNext)
        let finale = try await tv.expect("FINAL_RESULTS_PRESENT")
        #expect(finale.payloadObject["winnerPlayerId"] as? String == anna.id)
        #expect(finale.payloadObject["isTie"] as? Bool == false)
        #expect(await tv.allTexts().contains { $0.contains("\"SFX_PLAY\"") && $0.contains("winner_fanfare") })
        // The finale lasts 1.5 s; the bound is generous for a busy machine (a full `make test`).
        try await table.allSee(.roundEnd, timeout: .seconds(15))
        table.closeAll()
    }

    @Test("reconnecting mid-clue restores phase, clue and points from the snapshot")
    func reconnect() async throws {
        var table = try await LiveTable.open(box, settings: Self.quick, players: ["Anna", "Björn"], tv: false)
        table.host.send(.hostStartGame)
        try await table.allSee(.clueLevel, level: 10)
        try await table.brakeAndAnswer(0, try await table.destinationName())
        try await table.allSee(.clueLevel, level: 8)

        let bjorn = table.players[1]
        bjorn.socket.close()
        _ = try await bjorn.socket.closeCode()
        try await table.host.expectSnapshot { $0.players.first { $0.playerId == bjorn.id }?.isConnected == false }

        let back = TestSocket(url: box.webSocketURL, token: bjorn.token)
        let welcome = try await back.expect("WELCOME")
        guard case .welcome(let payload) = welcome.event else { throw HarnessError.unexpected("not a welcome") }
        #expect(payload.playerId == bjorn.id)
        #expect(payload.role == .player)
        #expect(payload.projection.phase == .clueLevel)
        #expect(payload.projection.clue?.levelPoints == 8)
        #expect(payload.projection.lockedAnswers.map(\.playerId) == [table.players[0].id])
        #expect(payload.projection.lockedAnswers.first?.answerText == nil)
        let snapshot = try await back.expectSnapshot { $0.phase == .clueLevel }
        #expect(snapshot.you?.points == 0)
        try await table.host.expectSnapshot { $0.players.first { $0.playerId == bjorn.id }?.isConnected == true }
        back.send(.resumeSession)
        try await back.expectSnapshot { $0.clue?.levelPoints == 8 }
        back.send(.ping(.init(clientTimeMs: 1234)))
        let pong = try await back.expect("PONG")
        #expect(pong.payloadObject["clientTimeMs"] as? Int == 1234)
        table.players[1].socket = back
        table.closeAll()
    }

    @Test("20 brake pulls at the same moment: exactly one is accepted")
    func simultaneousBrakes() async throws {
        let names = (1...20).map { "Player \($0)" }
        let table = try await LiveTable.open(box, settings: Self.quick, players: names, tv: true)
        table.host.send(.hostStartGame)
        try await table.allSee(.clueLevel, level: 10)
        for player in table.players { player.socket.send(.brakePull(.init())) }
        let accepted = try await table.tv!.expect("BRAKE_ACCEPTED")
        let owner = try #require(accepted.payloadObject["brakeOwnerPlayerId"] as? String)
        var rejected = 0
        for player in table.players where player.id != owner {
            let message = try await player.socket.expect("BRAKE_REJECTED")
            #expect(message.payloadObject["reason"] as? String == "already_paused")
            rejected += 1
        }
        #expect(rejected == 19)
        try await Task.sleep(for: .milliseconds(300))
        let acceptedCount = await table.tv!.allTexts().filter { $0.contains("\"BRAKE_ACCEPTED\"") }.count
        #expect(acceptedCount == 1)
        // Every player's screen shows the brake with its event: the state comes right behind it
        // (docs/protocol.md), not after the answers to the other pulls.
        for player in table.players {
            let texts = await player.socket.allTexts()
            let event = try #require(texts.firstIndex { $0.contains("\"BRAKE_ACCEPTED\"") })
            #expect(texts.indices.contains(event + 1) && texts[event + 1].contains("\"STATE_SNAPSHOT\""))
            #expect(texts.indices.contains(event + 1) && texts[event + 1].contains("\"PAUSED_FOR_BRAKE\""))
        }
        table.closeAll()
    }
}
