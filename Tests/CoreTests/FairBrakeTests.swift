import Foundation
import Testing

@testable import Core

/// CONTRACT 4.1: pulls judged by when they were pressed, the arbitration window, the level a
/// player's screen showed, and the clock estimate behind them.
@Suite("Fair brake")
struct FairBrakeTests {
    private func clueTable(players: Int = 3) throws -> Table {
        var table = try Table(players: players, settings: Fixture.settings { $0.introMs = 0 })
        try table.start()
        // A second into the 10-point clue, so that a pull judged a little earlier still falls in it.
        table.advance(1_000)
        return table
    }

    /// A game that moves on by itself (the clue has a countdown), at its first clue.
    private func autoAdvancing() throws -> Table {
        var table = try Table(
            settings: Fixture.settings {
                $0.introMs = 0; $0.autoAdvance = true
            })
        try table.start()
        return table
    }

    /// A pull that arrives now, judged pressed `earlierMs` before, on a link `screenDelayMs` away,
    /// in a session whose slowest link could still be `windowMs` in flight.
    /// A pull that arrives now, judged pressed `earlierMs` before, on a link `screenDelayMs` away
    /// (`lookbackMs` at the most), in a session whose slowest link could still be `windowMs` in flight.
    @discardableResult
    private func pull(
        _ table: inout Table, _ index: Int, earlierMs: Int64, screenDelayMs: Int64 = 0, lookbackMs: Int64? = nil,
        windowMs: Int64 = 100, levelPoints: Int? = nil
    ) throws -> [Effect] {
        let timing = PullTiming(
            judgedAt: table.now - earlierMs, screenDelayMs: screenDelayMs,
            lookbackMs: lookbackMs ?? (screenDelayMs > 0 ? screenDelayMs + 20 : 0), windowMs: windowMs, clamped: false)
        return try table.player(index, .brakePull(levelPoints: levelPoints, timing: timing))
    }

    @Test("a lagged earlier press wins over an earlier arrival; the others are told they were beaten")
    func laggedEarlierPressWins() throws {
        var table = try clueTable()
        let first = table.now
        let version = table.game.version
        let revision = table.game.revision
        let waiting = try pull(&table, 0, earlierMs: 10)
        #expect(waiting.isEmpty, "nobody hears of a pull while the window is open")
        #expect(table.game.phase == .clueLevel && table.game.brake == nil)
        #expect(table.game.version == version && table.game.revision == revision + 1, "saved, not shown")
        #expect(table.game.nextDeadline == Deadline(timerId: Arbitration.timerId, at: first - 10 + 100))
        table.advance(30)
        try pull(&table, 1, earlierMs: 90)
        // The best is now judged 60 ms before the first arrival: a pull still in flight could beat it
        // until 100 ms after that.
        #expect(table.game.nextDeadline == Deadline(timerId: Arbitration.timerId, at: first + 40))
        let decided = try table.fireNextTimer()
        #expect(table.now == first + 40)
        #expect(table.game.brake?.ownerId == "p2" && table.game.phase == .pausedForBrake)
        let accepted = decided.events(for: .tv).compactMap { event -> BrakeAccepted? in
            if case .brakeAccepted(let accepted) = event { accepted } else { nil }
        }
        #expect(accepted.map(\.judgedAtServerMs) == [first - 60])
        #expect(accepted.map(\.compensatedMs) == [90])
        #expect(accepted.map(\.decidedAfterMs) == [40])
        #expect(decided.events(for: .player, participant: "p1").contains(.brakeRejected(.init(reason: .beaten))))
        #expect(!decided.events(for: .player, participant: "p2").contains(.brakeRejected(.init(reason: .beaten))))
        #expect(!decided.events(for: .player, participant: "p3").contains(.brakeRejected(.init(reason: .beaten))))
    }

    @Test("the window closes at most 150 ms after the first arrival")
    func windowIsBounded() throws {
        var table = try clueTable()
        let first = table.now
        try pull(&table, 0, earlierMs: 0, windowMs: 400)
        #expect(table.game.nextDeadline?.at == first + BrakeJudge.maxLookbackMs)
    }

    @Test("judged times within 5 ms go to the earlier arrival")
    func ties() throws {
        var table = try clueTable()
        try pull(&table, 0, earlierMs: 20)
        table.advance(10)
        // Judged 4 ms earlier than the first, but within the tie margin: the first arrival keeps it.
        try pull(&table, 1, earlierMs: 34)
        try table.fireNextTimer()
        #expect(table.game.brake?.ownerId == "p1")
        // A clear 6 ms earlier does win.
        var other = try clueTable()
        try pull(&other, 0, earlierMs: 20)
        other.advance(10)
        try pull(&other, 1, earlierMs: 36)
        try other.fireNextTimer()
        #expect(other.game.brake?.ownerId == "p2")
    }

    @Test("a v1 client without echoes is judged at its arrival, and with no window the first pull wins at once")
    func v1Client() throws {
        var table = try clueTable()
        let effects = try table.player(1, .brakePull())
        #expect(table.game.brake?.ownerId == "p2")
        #expect(effects.eventTypes.contains("BRAKE_ACCEPTED"))
        // In a session where others have estimates, its pull waits for theirs, judged at arrival.
        var mixed = try clueTable()
        try pull(&mixed, 0, earlierMs: 0, windowMs: 60)
        mixed.advance(20)
        try pull(&mixed, 1, earlierMs: 50, windowMs: 60)
        try mixed.fireNextTimer()
        #expect(mixed.game.brake?.ownerId == "p2", "pressed 30 ms before the v1 pull arrived")
    }

    @Test("a press made while the phone still showed clue 10 counts at 10 after the box moved to 8")
    func boundaryPress() throws {
        var table = try clueTable()
        table.advance(5_000)
        try table.host(.nextClue)
        #expect(table.game.round?.levelPoints == 8)
        table.advance(20)
        // Pressed 5 ms after the change, on a phone 30 ms away: it still showed 10.
        try pull(&table, 0, earlierMs: 15, screenDelayMs: 30, windowMs: 0)
        #expect(table.game.brake?.levelPoints == 10)
        #expect(table.game.round?.levelPoints == 8, "the clue on screen stays the one the room sees")
        try table.player(0, .brakeAnswer(answerText: "Zdestname1"))
        #expect(table.game.round?.locks.map(\.levelPoints) == [10])
        // Pressed after the phone showed 8: counts at 8.
        var later = try clueTable()
        later.advance(5_000)
        try later.host(.nextClue)
        later.advance(60)
        try pull(&later, 0, earlierMs: 10, screenDelayMs: 30, windowMs: 0)
        #expect(later.game.brake?.levelPoints == 8)
    }

    @Test("a claimed clue: a later one is taken, an earlier one if the screen could still show it, else the judged one")
    func claimedLevel() throws {
        func changed() throws -> Table {
            var table = try clueTable()
            table.advance(5_000)
            try table.host(.nextClue)
            return table
        }
        // Judged 10 (pressed 5 ms after the change on a 30 ms link), the phone says 8: fewer points, taken.
        var later = try changed()
        later.advance(20)
        try pull(&later, 0, earlierMs: 15, screenDelayMs: 30, windowMs: 0, levelPoints: 8)
        #expect(later.game.brake?.levelPoints == 8)
        // Judged 8 with the typical delay, the phone says 10: its 8 may have come down slower (50 ms
        // at the most), so 10 it is.
        var slower = try changed()
        slower.advance(70)
        try pull(&slower, 0, earlierMs: 30, screenDelayMs: 30, lookbackMs: 50, windowMs: 0, levelPoints: 10)
        #expect(slower.game.brake?.levelPoints == 10)
        // Claimed 10 long after the 8 could have reached it: counted at 8, not refused.
        var forged = try changed()
        forged.advance(300)
        try pull(&forged, 0, earlierMs: 10, screenDelayMs: 30, lookbackMs: 50, windowMs: 0, levelPoints: 10)
        #expect(forged.game.brake?.levelPoints == 8)
        // Judged at its arrival, a claim of a clue that has gone is refused, as in v1.
        var v1 = try changed()
        v1.advance(300)
        let refused = try v1.player(0, .brakePull(levelPoints: 10))
        #expect(refused == [.send(.brakeRejected(.init(reason: .notAllowed)), to: .participant("p1"))])
    }

    @Test("after a brake won on clue 10 while the room saw 8, the answer opens 8 again in full")
    func crossLevelContinues() throws {
        var table = try clueTable()
        table.advance(5_000)
        try table.host(.nextClue)
        table.advance(20)
        try pull(&table, 0, earlierMs: 15, screenDelayMs: 30, windowMs: 0)
        #expect(table.game.brake?.levelPoints == 10 && table.game.brake?.levelIndex == 0)
        let effects = try table.player(0, .brakeAnswer(answerText: "Zdestname1"))
        #expect(
            effects.events(for: .tv).contains {
                if case .cluePresent(let clue) = $0 { clue.levelPoints == 8 } else { false }
            })
        #expect(table.game.round?.levelPoints == 8 && table.game.phase == .clueLevel)
        // A brake on 10 that runs out bars its owner from 10, not from the 8 on screen.
        var lapsed = try clueTable()
        lapsed.advance(5_000)
        try lapsed.host(.nextClue)
        lapsed.advance(20)
        try pull(&lapsed, 1, earlierMs: 15, screenDelayMs: 30, windowMs: 0)
        try lapsed.fireNextTimer()
        #expect(lapsed.game.round?.lapsedBrakes["p2"] == 0)
        lapsed.advance(2_000)
        try lapsed.player(1, .brakePull())
        #expect(lapsed.game.brake?.ownerId == "p2" && lapsed.game.brake?.levelPoints == 8)
    }

    @Test("a candidate who leaves or is kicked takes their pull out; the window goes on for the others")
    func candidateLeaves() throws {
        var table = try clueTable()
        try pull(&table, 0, earlierMs: 60)
        table.advance(10)
        try pull(&table, 1, earlierMs: 5)
        try table.player(0, .leave)
        #expect(table.game.arbitration?.pulls.map(\.playerId) == ["p2"])
        try table.fireNextTimer()
        #expect(table.game.brake?.ownerId == "p2")
        // The only candidate kicked: no brake, and the clue's countdown runs on with what it had left.
        var kicked = try autoAdvancing()
        let clue = try #require(kicked.game.timers.first { $0.purpose == .clue })
        kicked.advance(1_000)
        try pull(&kicked, 2, earlierMs: 0)
        kicked.advance(50)
        let effects = try kicked.host(.kick(playerId: "p3"))
        #expect(kicked.game.arbitration == nil && kicked.game.brake == nil && kicked.game.phase == .clueLevel)
        #expect(!effects.eventTypes.contains("BRAKE_ACCEPTED"))
        let running = try #require(kicked.game.timers.first { $0.id == clue.id })
        #expect(running.deadline == clue.startAt + clue.durationMs + 50)
    }

    @Test("a pull that arrives after the window should have closed finds the brake taken")
    func lateToTheWindow() throws {
        var table = try clueTable()
        try pull(&table, 0, earlierMs: 0, windowMs: 40)
        // The decision's timer has not fired yet (a busy room); a pull judged earlier comes 60 ms later.
        table.advance(60)
        let effects = try pull(&table, 1, earlierMs: 100, windowMs: 40)
        #expect(table.game.brake?.ownerId == "p1")
        #expect(effects.events(for: .player, participant: "p2").contains(.brakeRejected(.init(reason: .alreadyPaused))))
        #expect(effects.eventTypes.contains("BRAKE_ACCEPTED"), "the decision is in this command, and saved with it")
    }

    @Test("ending or restarting the game drops the window without a brake")
    func endDropsTheWindow() throws {
        var table = try clueTable()
        try pull(&table, 0, earlierMs: 0)
        let effects = try table.host(.end(reason: "host_ended"))
        #expect(!effects.eventTypes.contains("BRAKE_ACCEPTED"))
        #expect(table.game.arbitration == nil)
    }

    @Test("a press judged during another player's brake, or before the clue, is refused")
    func pressesOutsideAnOpenClue() throws {
        var table = try clueTable()
        table.advance(1_000)
        try table.player(0, .brakePull())
        table.advance(1_000)
        try table.player(0, .brakeAnswer(answerText: "Nowhere"))
        table.advance(20)
        // Judged 40 ms ago: the phone showed the brake then.
        let beaten = try pull(&table, 1, earlierMs: 40, windowMs: 0)
        #expect(beaten == [.send(.brakeRejected(.init(reason: .beaten)), to: .participant("p2"))])
        var early = try Table(settings: Fixture.settings { $0.introMs = 0 })
        try early.start()
        early.advance(10)
        let tooEarly = try pull(&early, 1, earlierMs: 40, windowMs: 0)
        #expect(tooEarly == [.send(.brakeRejected(.init(reason: .notAllowed)), to: .participant("p2"))])
    }

    @Test("a press the moment a clue came, on a link quicker than typical, counts on that clue")
    func instantPress() throws {
        var table = try Table(settings: Fixture.settings { $0.introMs = 0 })
        try table.start()
        table.advance(2)
        let quick = PullTiming(judgedAt: table.now - 1, screenDelayMs: 6, fastestMs: 1, windowMs: 0, clamped: false)
        try table.player(0, .brakePull(timing: quick))
        #expect(table.game.brake?.levelPoints == 10, "the typical delay puts it in the intro; the quickest does not")
        table.advance(1_000)
        try table.player(0, .brakeAnswer(answerText: "Nowhere"))
        table.advance(2)
        let next = PullTiming(judgedAt: table.now - 1, screenDelayMs: 6, fastestMs: 1, windowMs: 0, clamped: false)
        try table.player(1, .brakePull(timing: next))
        #expect(table.game.brake?.ownerId == "p2" && table.game.brake?.levelPoints == 8)
        // A clock a few milliseconds off puts the press before the clue even on the quickest
        // link; the phone says it showed the clue showing now, so it pressed after it came.
        table.advance(1_000)
        try table.player(1, .brakeAnswer(answerText: "Nowhere"))
        table.advance(2)
        let skewed = PullTiming(judgedAt: table.now - 4, screenDelayMs: 3, fastestMs: 1, windowMs: 0, clamped: false)
        try table.player(2, .brakePull(levelPoints: 6, timing: skewed))
        #expect(table.game.brake?.ownerId == "p3" && table.game.brake?.levelPoints == 6)
    }

    @Test("a command that moves the game on decides the window first")
    func settledBeforeMovingOn() throws {
        var table = try clueTable()
        try pull(&table, 2, earlierMs: 0)
        table.advance(10)
        let effects = try table.host(.pause)
        #expect(effects.eventTypes.contains("BRAKE_ACCEPTED"))
        #expect(table.game.brake?.ownerId == "p3" && table.game.pausedSince != nil)
        #expect(table.game.arbitration == nil)
    }

    @Test("the clue's countdown stops at the first pull and stays stopped for the brake")
    func clueTimerHeld() throws {
        var table = try autoAdvancing()
        let clue = try #require(table.game.timers.first { $0.purpose == .clue })
        table.advance(1_000)
        // (Judged at its arrival, a second into the clue.)
        try pull(&table, 0, earlierMs: 0)
        #expect(table.game.nextDeadline?.timerId == Arbitration.timerId)
        try table.fireNextTimer()
        #expect(table.game.timers.first { $0.id == clue.id }?.remaining(at: table.now) == clue.durationMs - 1_000)
    }

    @Test("the same log replays to the same decision")
    func replay() throws {
        var table = try clueTable()
        let start = table.now
        var log: [(Command, Issuer, ServerTime)] = []
        func record(_ command: Command, _ by: Issuer) throws {
            _ = try table.game.apply(command, by: by, now: table.now)
            log.append((command, by, table.now))
        }
        let timing = { (earlier: Int64) in
            PullTiming(judgedAt: table.now - earlier, screenDelayMs: 10, windowMs: 80, clamped: false)
        }
        try record(.brakePull(timing: timing(5)), .participant("p1"))
        table.advance(25)
        try record(.brakePull(timing: timing(70)), .participant("p3"))
        let deadline = try #require(table.game.nextDeadline)
        table.now = deadline.at
        try record(.timerFired(timerId: deadline.timerId), .box)
        // Through the log's encoding, as the box stores it.
        var replayed = try clueTable()
        #expect(replayed.now == start)
        #expect(table.game.brake?.ownerId == "p3")
        for (command, by, at) in log {
            let stored = try JSONDecoder().decode(Command.self, from: JSONEncoder().encode(command))
            _ = try replayed.game.apply(stored, by: by, now: at)
        }
        #expect(replayed.game == table.game)
        #expect(replayed.game.brake?.ownerId == "p3")
    }

    @Test("a brake that ran out bars its owner from that clue only")
    func lapsedPerClue() throws {
        var table = try clueTable()
        try table.player(0, .brakePull())
        try table.fireNextTimer()
        table.advance(2_000)
        #expect(
            try table.player(0, .brakePull()) == [
                .send(.brakeRejected(.init(reason: .notAllowed)), to: .participant("p1"))
            ])
        table.advance(2_000)
        try table.host(.nextClue)
        try table.player(0, .brakePull())
        #expect(table.game.brake?.ownerId == "p1")
    }
}

@Suite("Clock estimate and judge")
struct BrakeJudgeTests {
    /// Echoes of a phone whose clock is `offset` ahead, `up`/`down` ms away, with extra delays.
    private func estimate(offset: Int64, up: Int64, down: Int64, extra: [(Int64, Int64)]) -> ClockEstimate {
        var estimate = ClockEstimate()
        var sent: ServerTime = 1_000_000
        for (upExtra, downExtra) in extra {
            let client = sent + down + downExtra + offset
            estimate.add(.init(sentAt: sent, receivedAt: sent + down + downExtra + up + upExtra, clientTimeMs: client))
            sent += 2_000
        }
        return estimate
    }

    @Test("the offset comes from the lowest round trip; one-way delay and jitter from the quartile spread")
    func filter() {
        let clock = estimate(offset: 123_456, up: 40, down: 40, extra: [(30, 0), (0, 0), (12, 8), (0, 25), (5, 5)])
        #expect(clock.isUsable)
        #expect(clock.offsetMs == 123_456)
        #expect(clock.oneWayMs == 40)
        #expect(clock.jitterMs == 13)
        #expect(clock.medianRoundTripMs == 100)
        #expect(!estimate(offset: 0, up: 5, down: 5, extra: [(0, 0), (0, 0)]).isUsable, "two echoes are not enough")
    }

    @Test("a sample is off by half the difference of its two one-way delays")
    func asymmetry() {
        let clock = estimate(offset: 0, up: 90, down: 10, extra: [(0, 0), (0, 0), (0, 0)])
        #expect(clock.offsetMs == -40)
    }

    @Test("only the recent samples count")
    func recentOnly() {
        var clock = estimate(offset: 0, up: 2, down: 2, extra: [(0, 0)])
        let slow = estimate(offset: 500, up: 60, down: 60, extra: Array(repeating: (0, 0), count: ClockEstimate.kept))
        for sample in slow.samples { clock.add(sample) }
        #expect(clock.offsetMs == 500 && clock.oneWayMs == 60)
    }

    @Test(
        "a press is judged on the box's clock; a forged early claim is clamped; no claim or no estimate is the arrival")
    func judge() {
        let clock = estimate(offset: 5_000, up: 50, down: 50, extra: [(0, 0), (10, 10), (4, 4)])
        let lookback = BrakeJudge.lookbackMs(clock)
        // Round trips 100, 108 and 120: the upper quartile is the third.
        #expect(clock.jitterMs == 10)
        #expect(lookback == 50 + 10 + BrakeJudge.marginMs)
        let honest = BrakeJudge.judge(arrivedAt: 10_050, atClientMs: 15_000, estimate: clock, windowMs: 70)
        // The level its screen showed is looked up the typical trip before: the quickest plus half the jitter.
        #expect(
            honest
                == PullTiming(
                    judgedAt: 10_000, screenDelayMs: 55, lookbackMs: 65, fastestMs: 50, windowMs: 70, clamped: false))
        let forged = BrakeJudge.judge(arrivedAt: 10_050, atClientMs: 14_000, estimate: clock, windowMs: 70)
        #expect(forged.judgedAt == 10_050 - lookback && forged.clamped)
        let future = BrakeJudge.judge(arrivedAt: 10_050, atClientMs: 16_000, estimate: clock, windowMs: 70)
        #expect(future.judgedAt == 10_050 && !future.clamped)
        #expect(BrakeJudge.judge(arrivedAt: 10_050, atClientMs: nil, estimate: clock, windowMs: 0).judgedAt == 10_050)
        #expect(
            BrakeJudge.judge(arrivedAt: 10_050, atClientMs: 15_000, estimate: ClockEstimate(), windowMs: 0).judgedAt
                == 10_050)
        let far = estimate(offset: 0, up: 400, down: 400, extra: [(0, 0), (0, 0), (0, 0)])
        #expect(BrakeJudge.lookbackMs(far) == BrakeJudge.maxLookbackMs)
        // Times no clock gives: clamped, never a trap.
        for claim in [Int64.min, Int64.max, Int64.min + 1] {
            let timing = BrakeJudge.judge(arrivedAt: 10_050, atClientMs: claim, estimate: clock, windowMs: 0)
            #expect(timing.judgedAt >= 10_050 - lookback && timing.judgedAt <= 10_050)
        }
        var hostile = ClockEstimate()
        for time in [Int64.min, Int64.max, Int64.min, 5, 6] {
            hostile.add(.init(sentAt: 1_000_000, receivedAt: 1_000_010, clientTimeMs: time))
        }
        #expect(hostile.samples.count == 3, "echoes whose offset does not fit are not kept")
        let judged = BrakeJudge.judge(arrivedAt: 1_000_100, atClientMs: Int64.min, estimate: hostile, windowMs: 0)
        #expect(judged.clamped && judged.judgedAt == 1_000_100 - BrakeJudge.lookbackMs(hostile))
    }
}

@Suite("Fair brake, over random delays")
struct BrakeLabTests {
    @Test("over 600 contested pulls on 2–150 ms links: the true first press wins, forged claims are clamped")
    func lab() {
        // The run `make bench` reports (`TriptoBench`): the same seed and counts.
        var lab = BrakeLab(seed: 2026)
        let report = lab.run(contests: 600, levelPresses: 400)
        #expect(report.clearWinner.contests + report.closeWinner.contests >= 450)
        #expect(report.clearWinner.compensatedShare >= 0.99, "\(report.clearWinner)")
        #expect(report.clearWinner.byArrivalShare < report.clearWinner.compensatedShare - 0.1, "\(report.clearWinner)")
        #expect(report.forged > 0 && report.forgedClamped == report.forged)
        #expect(report.level.compensatedShare > report.level.byArrivalShare, "\(report.level)")
        #expect(report.decidedAfterMs.allSatisfy { $0 <= BrakeJudge.maxLookbackMs })
        print(
            "lab: \(report.clearWinner) \(report.closeWinner) level \(report.level) forged \(report.forged) "
                + "won unfairly \(report.forgedWonUnfairly) waits \(report.decidedAfterMs.min() ?? 0)-"
                + "\(report.decidedAfterMs.max() ?? 0)")
    }

    @Test("the judge never places a press before the link allows or after its arrival", arguments: 0..<8)
    func bounds(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        for _ in 0..<2_000 {
            var estimate = ClockEstimate()
            let offset = Int64.random(in: -10_000_000...10_000_000, using: &random)
            var sent: ServerTime = 5_000_000
            for _ in 0..<Int.random(in: 0...20, using: &random) {
                let down = Int64.random(in: 1...400, using: &random)
                let up = Int64.random(in: 1...400, using: &random)
                estimate.add(.init(sentAt: sent, receivedAt: sent + down + up, clientTimeMs: sent + down + offset))
                sent += 2_000
            }
            let arrival = sent + Int64.random(in: 0...1_000, using: &random)
            let claim = Int64.random(in: -5_000...5_000, using: &random) + arrival + offset
            let timing = BrakeJudge.judge(arrivedAt: arrival, atClientMs: claim, estimate: estimate, windowMs: 0)
            #expect(timing.judgedAt <= arrival)
            #expect(timing.judgedAt >= arrival - BrakeJudge.lookbackMs(estimate))
            #expect(arrival - timing.judgedAt <= BrakeJudge.maxLookbackMs)
            if !estimate.isUsable { #expect(timing.judgedAt == arrival) }
        }
    }
}
