import Testing

@testable import Core

@Suite("Scoring and the finale")
struct ScoringTests {
    @Test("correct locked answer at level X gives X, wrong gives 0; results list every lock")
    func destinationScoring() throws {
        var table = try Table(players: 4, settings: Fixture.settings { $0.introMs = 0 })
        try table.start([Fixture.secretDestination(1)])
        try table.player(0, .brakePull())
        try table.player(0, .brakeAnswer(answerText: "zdestname1"))  // correct at 10 → level 8 now
        try table.player(1, .brakePull())
        try table.player(1, .brakeAnswer(answerText: "Somewhere else"))  // wrong at 8 → level 6
        try table.host(.nextClue)  // → 4
        try table.player(2, .brakePull())
        try table.player(2, .brakeAnswer(answerText: "Zdestalias1!"))  // alias, correct at 4 → 2
        let reveal = try table.host(.nextClue)
        let results = try #require(
            reveal.events(for: .tv).compactMap { event -> DestinationResults? in
                if case .destinationResults(let results) = event { return results }
                return nil
            }.first)
        #expect(results.results.map(\.playerId) == ["p1", "p2", "p3"])
        #expect(results.results.map(\.isCorrect) == [true, false, true])
        #expect(results.results.map(\.pointsAwarded) == [10, 0, 4])
        #expect(results.results.map(\.lockedAtLevelPoints) == [10, 8, 4])
        #expect(table.game.players.map(\.points) == [10, 0, 4, 0])
        #expect(table.game.standings.map(\.playerId) == ["p1", "p3", "p2", "p4"])
    }

    @Test("a single winner")
    func singleWinner() throws {
        let results = try finale(braker: "p1", followupCorrect: ["p2"])
        #expect(results.winnerPlayerId == "p1")
        #expect(!results.isTie)
        #expect(results.tieWinners.isEmpty)
        #expect(results.standingsTop.map(\.playerId) == ["p1", "p2", "p3"])
        #expect(results.standingsFull.map(\.points) == [10, 2, 0])
    }

    @Test("a tie for the most points is a shared win")
    func tie() throws {
        let results = try finale(followupCorrect: ["p1", "p3"])
        #expect(results.isTie)
        #expect(results.tieWinners == ["p1", "p3"])
        #expect(results.winnerPlayerId == "p1")
        let nobodyScored = try finale()
        #expect(nobodyScored.isTie)
        #expect(nobodyScored.tieWinners == ["p1", "p2", "p3"])
    }

    @Test("finale timeline: sting, drumroll at 0.8 s, fanfare and confetti at 3.2 s")
    func timeline() throws {
        var table = try tableAtScoreboard()
        let t0 = table.now
        let room = Self.roomEvents(try table.host(.next))
        #expect(
            room == [
                .sfxPlay(SfxPlay(sfxId: "sting_build", startAtServerMs: t0)),
                .sfxPlay(SfxPlay(sfxId: "drumroll", startAtServerMs: t0 + 800)),
                .sfxPlay(SfxPlay(sfxId: "winner_fanfare", startAtServerMs: t0 + 3_200)),
                .uiEffectTrigger(
                    UIEffectTrigger(
                        effectId: "confetti", intensity: "high", durationMs: 2_500, startAtServerMs: t0 + 3_200)),
                .musicSet(
                    MusicSet(
                        trackId: "finale", mode: "loop", startAtServerMs: t0 + 5_500, gainDb: Game.defaultMusicGainDb)),
            ])
    }

    @Test("a finale paused before its winner goes on from there: the drumroll again, the fanfare, then the bed")
    func pausedFinale() throws {
        var table = try tableAtScoreboard()
        try table.host(.next)
        table.advance(1_500)
        try table.host(.pause)
        table.advance(20_000)
        let t1 = table.now
        let room = Self.roomEvents(try table.host(.resume))
        // 1.5 s in: the drumroll (0.8–3.2 s) starts again, the fanfare is 1.7 s away, the bed 4 s.
        #expect(
            room == [
                .sfxPlay(SfxPlay(sfxId: "drumroll", startAtServerMs: t1)),
                .sfxPlay(SfxPlay(sfxId: "winner_fanfare", startAtServerMs: t1 + 1_700)),
                .uiEffectTrigger(
                    UIEffectTrigger(
                        effectId: "confetti", intensity: "high", durationMs: 2_500, startAtServerMs: t1 + 1_700)),
                .musicSet(
                    MusicSet(
                        trackId: "finale", mode: "loop", startAtServerMs: t1 + 4_000, gainDb: Game.defaultMusicGainDb)),
            ])

        // Paused again once the bed plays: only the bed comes back, at once.
        table.advance(6_000)
        try table.host(.pause)
        table.advance(1_000)
        let t2 = table.now
        let again = Self.roomEvents(try table.host(.resume))
        #expect(
            again == [
                .musicSet(
                    MusicSet(trackId: "finale", mode: "loop", startAtServerMs: t2, gainDb: Game.defaultMusicGainDb))
            ])
    }

    @Test("finaleMs 0 goes straight to ROUND_END")
    func noFinale() throws {
        var table = try tableAtScoreboard(finaleMs: 0)
        try table.host(.next)
        #expect(table.game.phase == .roundEnd)
        #expect(table.game.finalResults != nil)
    }

    /// One destination, no followups, on its scoreboard: the next HOST_NEXT shows the finale.
    private func tableAtScoreboard(finaleMs: Int = 11_000) throws -> Table {
        var table = try Table(
            settings: Fixture.settings {
                $0.introMs = 0; $0.followupsPerDestination = 0; $0.finaleMs = finaleMs
            })
        try table.start([Fixture.secretDestination(1)])
        try table.host(.forceReveal)
        try table.host(.next)
        return table
    }

    /// The events of `effects` sent to the whole room (sounds and screen effects).
    private static func roomEvents(_ effects: [Effect]) -> [ServerEvent] {
        effects.compactMap { effect -> ServerEvent? in
            if case .send(let event, .room) = effect { return event }
            return nil
        }
    }

    /// Plays one destination with one followup: `braker` locks a correct answer at 10 points, and
    /// `followupCorrect` answer the followup right (+2 each).
    private func finale(braker: ParticipantID? = nil, followupCorrect: [ParticipantID] = []) throws -> FinalResults {
        var table = try Table(
            settings: Fixture.settings {
                $0.introMs = 0; $0.followupsPerDestination = 1
            })
        try table.start([Fixture.secretDestination(1)])
        if let braker {
            _ = try table.game.apply(.brakePull(), by: .participant(braker), now: table.now)
            _ = try table.game.apply(.brakeAnswer(answerText: "Zdestname1"), by: .participant(braker), now: table.now)
        }
        try table.host(.forceReveal)
        try table.host(.next)
        for player in followupCorrect {
            _ = try table.game.apply(
                .followupAnswer(index: 1, answerText: "Zanswer1x1"), by: .participant(player), now: table.now)
        }
        try table.host(.next)
        try table.host(.next)
        let effects = try table.host(.next)
        #expect(table.game.phase == .finalResults)
        return try #require(
            effects.events(for: .player).compactMap { event -> FinalResults? in
                if case .finalResultsPresent(let results) = event { return results }
                return nil
            }.first)
    }
}
