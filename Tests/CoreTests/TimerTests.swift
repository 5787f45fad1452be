import Testing

@testable import Core

@Suite("Timers, pause and resume")
struct TimerTests {
    @Test("pause freezes every timer; resume keeps the remaining time and sends TIMER_SYNC")
    func pauseResume() throws {
        var table = try Table(
            settings: Fixture.settings {
                $0.introMs = 0; $0.followupSeconds = 20
            })
        try table.start()
        try table.host(.forceReveal)
        try table.host(.next)
        let open = try #require(table.game.nextDeadline)
        #expect(open.at == table.now + 20_000)
        table.advance(5_000)
        let paused = try table.host(.pause)
        #expect(paused.eventTypes == ["AUDIO_STOP", "MUSIC_STOP"])
        #expect(table.game.nextDeadline == nil)
        #expect(table.game.projection(for: .tv, participant: nil, now: table.now).paused)
        #expect(
            table.game.projection(for: .tv, participant: nil, now: table.now + 99_000).timers.first?.remainingMs
                == 15_000)
        // Advancing is refused while paused; answering is not.
        #expect(throws: GameError.invalidPhase("The game is paused; resume it first")) { try table.host(.next) }
        try table.player(0, .followupAnswer(index: 1, answerText: "early"))
        #expect(throws: GameError.invalidPhase("The game is already paused")) { try table.host(.pause) }
        table.advance(60_000)
        let resumed = try table.host(.resume)
        #expect(resumed.eventTypes == ["TIMER_SYNC", "MUSIC_SET"])
        let deadline = try #require(table.game.nextDeadline)
        #expect(deadline.at == table.now + 15_000)
        let view = table.game.projection(for: .tv, participant: nil, now: table.now)
        #expect(view.timers.first?.remainingMs == nil)
        // The followup's own timer in the snapshot agrees with the running one.
        #expect(view.followup?.timer == view.timers.first)
        #expect(view.followup.map { $0.timer.startAtServerMs + $0.timer.durationMs } == deadline.at)
        #expect(throws: GameError.invalidPhase("The game is not paused")) { try table.host(.resume) }
    }

    @Test("pause during a brake holds the brake's deadline too")
    func pauseDuringBrake() throws {
        var table = try Table(settings: Fixture.settings { $0.introMs = 0 })
        try table.start()
        try table.player(0, .brakePull())
        table.advance(10_000)
        try table.host(.pause)
        table.advance(100_000)
        try table.host(.resume)
        #expect(table.game.nextDeadline?.at == table.now + 5_000)
        #expect(
            table.game.projection(for: .player, participant: "p2", now: table.now).brake?.deadlineServerMs == table.now
                + 5_000)
    }

    @Test("nothing to pause in the lobby or after the game")
    func pauseOutsideGame() throws {
        var table = try Table()
        #expect(throws: GameError.invalidPhase("Nothing to pause in LOBBY")) { try table.host(.pause) }
    }

    @Test("a stale timer id (from a phase that is over) is refused")
    func staleTimer() throws {
        var table = try Table()
        try table.start()
        let intro = try #require(table.game.nextDeadline)
        try table.host(.nextClue)
        #expect(throws: GameError.invalidPhase("Timer \(intro.timerId) is not running")) {
            try table.game.apply(.timerFired(timerId: intro.timerId), by: .box, now: intro.at)
        }
    }

    @Test("followup: last answer before the deadline counts, none after")
    func followupDeadline() throws {
        var table = try Table(settings: Fixture.settings { $0.introMs = 0 })
        try table.start()
        try table.host(.forceReveal)
        try table.host(.next)
        try table.player(0, .followupAnswer(index: 1, answerText: "wrong"))
        try table.player(0, .followupAnswer(index: 1, answerText: "Zaccepted1x1"))
        try table.player(1, .followupAnswer(index: 1, answerText: "Zanswer1x1"))
        try table.player(1, .followupAnswer(index: 1, answerText: "changed my mind"))
        #expect(throws: GameError.invalidPhase("Followup 2 is not open for answers")) {
            try table.player(2, .followupAnswer(index: 2, answerText: "x"))
        }
        #expect(
            table.game.projection(for: .player, participant: "p1", now: table.now).you?.followupAnswer == "Zaccepted1x1"
        )
        let closing = try table.fireNextTimer()
        let results = try #require(
            closing.events(for: .tv).compactMap { event -> FollowupResults? in
                if case .followupResults(let results) = event { return results }
                return nil
            }.first)
        #expect(results.correctAnswer == "Zanswer1x1")
        #expect(results.results.map(\.isCorrect) == [true, false, false])
        #expect(results.results.map(\.pointsAwarded) == [2, 0, 0])
        #expect(results.results[2].answerText == nil)
        #expect(table.game.players.map(\.points) == [2, 0, 0])
        #expect(throws: GameError.invalidPhase("Followup 1 is not open for answers")) {
            try table.player(2, .followupAnswer(index: 1, answerText: "Zanswer1x1"))
        }
    }
}
