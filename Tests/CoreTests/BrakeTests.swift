import Foundation
import Testing

@testable import Core

@Suite("Emergency brake")
struct BrakeTests {
    private func clueTable(
        limits: Limits = Limits(), _ change: (inout Settings) -> Void = { _ in }
    ) throws -> Table {
        var table = try Table(
            settings: Fixture.settings {
                $0.introMs = 0; change(&$0)
            }, limits: limits)
        try table.start()
        return table
    }

    @Test("first pull wins; BRAKE_ACCEPTED to all, SFX and AUDIO_STOP to the room")
    func firstWins() throws {
        var table = try clueTable()
        let effects = try table.player(1, .brakePull())
        #expect(table.game.phase == .pausedForBrake)
        #expect(table.game.brake?.ownerId == "p2")
        let accepted = BrakeAccepted(
            brakeOwnerPlayerId: "p2", playerName: "Player 2", levelPoints: 10, lockedPlayersCount: 0,
            deadlineServerMs: table.now + 15_000, judgedAtServerMs: table.now, compensatedMs: 0, decidedAfterMs: 0)
        #expect(effects.contains(.send(.brakeAccepted(accepted), to: .everyone)))
        #expect(effects.contains(.send(.sfxPlay(SfxPlay(sfxId: "brake", startAtServerMs: table.now)), to: .room)))
        #expect(effects.contains(.send(.audioStop(AudioStop()), to: .room)))
        // The answer's timer belongs to the brake's phase, not to the clue's.
        let answerTimer = effects.compactMap { effect -> TimerView? in
            if case .send(.timerSync(let sync), _) = effect { sync } else { nil }
        }
        #expect(answerTimer.map(\.phase) == [.pausedForBrake])
        #expect(answerTimer.map(\.durationMs) == [15_000])
        let version = table.game.version
        let second = try table.player(0, .brakePull())
        #expect(second == [.send(.brakeRejected(BrakeRejected(reason: .alreadyPaused)), to: .participant("p1"))])
        #expect(table.game.brake?.ownerId == "p2")
        #expect(table.game.version == version, "a refused pull is not a visible change")
    }

    @Test("every rejection reason")
    func rejections() throws {
        var table = try Table()
        // not_allowed: lobby, intro, reveal, followups, scoreboard
        #expect(
            try table.player(0, .brakePull()) == [
                .send(.brakeRejected(BrakeRejected(reason: .notAllowed)), to: .participant("p1"))
            ])
        table.advance(2_000)
        try table.start()
        #expect(
            try table.player(0, .brakePull()).events(for: .player, participant: "p1") == [
                .brakeRejected(BrakeRejected(reason: .notAllowed))
            ])
        // rate_limited: a second pull within 2 s
        #expect(
            try table.player(0, .brakePull()).events(for: .player, participant: "p1") == [
                .brakeRejected(BrakeRejected(reason: .rateLimited))
            ])
        try table.host(.nextClue)
        table.advance(1_999)
        #expect(
            try table.player(0, .brakePull()).events(for: .player, participant: "p1") == [
                .brakeRejected(BrakeRejected(reason: .rateLimited))
            ])
        table.advance(1)
        try table.player(0, .brakePull())
        #expect(table.game.brake?.ownerId == "p1")
        // already_paused: during a brake
        #expect(
            try table.player(1, .brakePull()).events(for: .player, participant: "p2") == [
                .brakeRejected(BrakeRejected(reason: .alreadyPaused))
            ])
        try table.player(0, .brakeAnswer(answerText: "Somewhere"))
        table.advance(5_000)
        // already_answered: one locked answer per destination
        #expect(
            try table.player(0, .brakePull()).events(for: .player, participant: "p1") == [
                .brakeRejected(BrakeRejected(reason: .alreadyAnswered))
            ])
        // already_paused: the host paused the game
        try table.host(.pause)
        #expect(
            try table.player(2, .brakePull()).events(for: .player, participant: "p3") == [
                .brakeRejected(BrakeRejected(reason: .alreadyPaused))
            ])
    }

    @Test("a pull naming a clue that has gone is refused; one naming the clue shown wins")
    func staleClue() throws {
        var table = try clueTable()
        try table.player(0, .brakePull(levelPoints: 10))
        #expect(table.game.brake?.levelPoints == 10)
        try table.player(0, .brakeAnswer(answerText: "Somewhere"))
        #expect(table.game.round?.levelPoints == 8)
        // Pulled on the 10-point clue, read after the owner's answer moved the game on.
        let version = table.game.version
        #expect(
            try table.player(1, .brakePull(levelPoints: 10)) == [
                .send(.brakeRejected(BrakeRejected(reason: .notAllowed)), to: .participant("p2"))
            ])
        #expect(table.game.phase == .clueLevel && table.game.version == version)
        try table.player(2, .brakePull(levelPoints: 8))
        #expect(table.game.brake?.ownerId == "p3" && table.game.brake?.levelPoints == 8)
        // During a brake, a pull for another clue is not_allowed rather than already_paused.
        table.advance(2_000)
        #expect(
            try table.player(1, .brakePull(levelPoints: 10)).events(for: .player, participant: "p2") == [
                .brakeRejected(BrakeRejected(reason: .notAllowed))
            ])
    }

    @Test("a pull logged before pulls named their clue replays as a pull on whatever clue shows")
    func oldLogRow() throws {
        let decoder = JSONDecoder()
        #expect(try decoder.decode(Command.self, from: Data(#"{"brakePull":{}}"#.utf8)) == .brakePull(levelPoints: nil))
        let named = Command.brakePull(levelPoints: 6)
        #expect(try decoder.decode(Command.self, from: JSONEncoder().encode(named)) == named)
    }

    @Test("hammering the button gets one pull through every cooldown")
    func hammering() throws {
        var table = try clueTable()
        try table.host(.pause)
        var accepted = 0
        for _ in 0..<40 {
            let effects = try table.player(0, .brakePull())
            if case .brakeRejected(let rejected)? = effects.events(for: .player, participant: "p1").first,
                rejected.reason == .alreadyPaused
            {
                accepted += 1
            }
            table.advance(100)
        }
        #expect(accepted == 2, "4 s of pulls at 10/s: one counted pull per 2 s")
    }

    @Test("the answer locks at the brake's level, the host alone gets its text, the game goes on")
    func answer() throws {
        var table = try clueTable()
        try table.host(.nextClue)
        try table.player(0, .brakePull())
        #expect(throws: GameError.forbidden("Only the player who pulled the brake may answer")) {
            try table.player(1, .brakeAnswer(answerText: "x"))
        }
        #expect(throws: GameError.invalidPayload("answerText must not be empty")) {
            try table.player(0, .brakeAnswer(answerText: "   "))
        }
        #expect(throws: GameError.invalidPayload("answerText has at most 100 characters")) {
            try table.player(0, .brakeAnswer(answerText: String(repeating: "a", count: 101)))
        }
        let effects = try table.player(0, .brakeAnswer(answerText: " Zdestalias1 "))
        #expect(
            effects.events(for: .host).contains(
                .brakeAnswerLocked(BrakeAnswerLocked(playerId: "p1", lockedAtLevelPoints: 8, answerText: "Zdestalias1"))
            ))
        #expect(
            effects.events(for: .player).contains(
                .brakeAnswerLocked(BrakeAnswerLocked(playerId: "p1", lockedAtLevelPoints: 8, answerText: nil))))
        #expect(
            effects.events(for: .tv).contains(
                .brakeAnswerLocked(BrakeAnswerLocked(playerId: "p1", lockedAtLevelPoints: 8, answerText: nil))))
        #expect(
            !effects.events(for: .host).contains(
                .brakeAnswerLocked(BrakeAnswerLocked(playerId: "p1", lockedAtLevelPoints: 8, answerText: nil))))
        #expect(table.game.phase == .clueLevel)
        #expect(table.game.round?.levelPoints == 6)
        #expect(table.game.brake == nil)
        #expect(table.game.round?.locks.map(\.levelPoints) == [8])
    }

    @Test("while the host has paused, the brake answer waits: the deadline is frozen and nothing advances")
    func answerWhilePaused() throws {
        var table = try clueTable()
        try table.player(0, .brakePull())
        try table.host(.pause)
        #expect(throws: GameError.invalidPhase("The game is paused; answer when it resumes")) {
            try table.player(0, .brakeAnswer(answerText: "Zdestname1"))
        }
        #expect(table.game.phase == .pausedForBrake)
        table.advance(60_000)
        try table.host(.resume)
        try table.player(0, .brakeAnswer(answerText: "Zdestname1"))
        #expect(table.game.round?.levelPoints == 8)
    }

    @Test("an answer at the 2-point level goes straight to the reveal")
    func lastLevel() throws {
        var table = try clueTable()
        for _ in 0..<4 { try table.host(.nextClue) }
        try table.player(2, .brakePull())
        let effects = try table.player(2, .brakeAnswer(answerText: "Zdestname1"))
        #expect(table.game.phase == .revealDestination)
        #expect(effects.eventTypes.contains("DESTINATION_RESULTS"))
        #expect(table.game.players[2].points == 2)
    }

    @Test(
        "no answer before the deadline: the brake is released, the same level goes on, its owner pulls again only at the next clue"
    )
    func timeout() throws {
        var table = try clueTable()
        try table.player(0, .brakePull())
        let deadline = try #require(table.game.nextDeadline)
        #expect(deadline.at == table.now + 15_000)
        try table.fireNextTimer()
        #expect(table.game.phase == .clueLevel)
        #expect(table.game.round?.levelPoints == 10)
        #expect(table.game.brake == nil)
        #expect(table.game.round?.locks.isEmpty == true)
        // Not on this clue: one player could otherwise hold it in 15-second blocks. Others may.
        table.advance(2_000)
        #expect(
            try table.player(0, .brakePull()).events(for: .player, participant: "p1") == [
                .brakeRejected(BrakeRejected(reason: .notAllowed))
            ])
        try table.player(1, .brakePull())
        #expect(table.game.brake?.ownerId == "p2")
        // At the next clue the owner of the lapsed brake may pull again (they locked no answer).
        try table.host(.nextClue)
        table.advance(2_000)
        try table.player(0, .brakePull())
        #expect(table.game.brake?.ownerId == "p1")
    }

    @Test("under the rules from before the lapsed brake waited (an old session's log), its owner pulls again at once")
    func timeoutUnderOldRules() throws {
        var table = try clueTable(limits: Limits(lapsedBrakeWaitsForNextClue: false))
        try table.player(0, .brakePull())
        try table.fireNextTimer()
        table.advance(2_000)
        try table.player(0, .brakePull())
        #expect(table.game.brake?.ownerId == "p1")
    }

    @Test("HOST_NEXT_CLUE overrides an active brake without locking anything")
    func hostOverride() throws {
        var table = try clueTable()
        try table.player(0, .brakePull())
        try table.host(.nextClue)
        #expect(table.game.phase == .clueLevel)
        #expect(table.game.round?.levelPoints == 8)
        #expect(table.game.brake == nil)
        #expect(table.game.timers.isEmpty, "the brake's deadline is gone")
        #expect(table.game.round?.locks.isEmpty == true)
    }

    @Test("the brake owner leaving or being kicked releases the brake")
    func ownerLeaves() throws {
        var table = try clueTable()
        try table.player(1, .brakePull())
        try table.host(.kick(playerId: "p2"))
        #expect(table.game.phase == .clueLevel)
        #expect(table.game.brake == nil)
        table.advance(2_000)
        try table.player(0, .brakePull())
        try table.player(0, .leave)
        #expect(table.game.brake == nil)
        #expect(table.game.players.map(\.id) == ["p3"])
    }

    @Test("with autoAdvance the clue's timer is held during the brake and resumes after")
    func heldClueTimer() throws {
        var table = try clueTable {
            $0.autoAdvance = true; $0.brakeAnswerSeconds = 5
        }
        let clueDeadline = try #require(table.game.nextDeadline)
        #expect(clueDeadline.at == table.now + 20_000)
        table.advance(4_000)
        try table.player(0, .brakePull())
        let brakeDeadline = try #require(table.game.nextDeadline)
        #expect(brakeDeadline.at == table.now + 5_000, "only the brake runs")
        let release = try table.fireNextTimer()
        #expect(release.eventTypes == ["TIMER_SYNC"])
        let resumed = try #require(table.game.nextDeadline)
        #expect(resumed.at == table.now + 16_000, "the clue keeps its remaining 16 s")
    }

    @Test("20 players pulling at the same moment: exactly one wins")
    func simultaneous() throws {
        var table = try Table(players: 20, settings: Fixture.settings { $0.introMs = 0 })
        try table.start()
        var winners: [ParticipantID] = []
        for index in table.players.indices.shuffled() {
            let effects = try table.player(index, .brakePull())
            for case .brakeAccepted(let accepted) in effects.events(for: .tv) {
                winners.append(accepted.brakeOwnerPlayerId)
            }
        }
        #expect(winners.count == 1)
        #expect(table.game.brake?.ownerId == winners.first)
    }
}
