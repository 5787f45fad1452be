import Foundation
import Testing

@testable import Core

/// CONTRACT 4.2: a game without a host, its captain's controls in every phase, a host who comes and
/// goes, and a captain who leaves.
@Suite("Playing without a host")
struct CaptainTests {
    /// What only a host may do, whatever the phase.
    static let hostOnly: [Command] = [
        .nextClue, .next, .forceReveal, .kick(playerId: "p2"), .setMusicGain(gainDb: -10), .endGame,
        .setPack(packId: "en-europe", language: .en),
    ]

    private func expectHostOnlyRefused(_ table: inout Table, by id: ParticipantID, in phase: String) {
        for command in Self.hostOnly {
            let before = table.game
            #expect(throws: GameError.self, "\(command) in \(phase)") {
                try table.game.apply(command, by: .participant(id), now: table.now)
            }
            #expect(table.game == before)
        }
    }

    @Test("the captain starts, pauses, resumes, plays again and ends; never what only a host may; others nothing")
    func captainInEveryPhase() throws {
        var table = try Table(players: 3, settings: Fixture.settings { $0.autoAdvance = true }, captained: true)
        #expect(table.game.captainId == "p1" && table.game.hostId == nil)
        #expect(table.game.projection(for: .tv, participant: table.tv, now: table.now).captainPlayerId == "p1")
        #expect(throws: GameError.self) { try table.player(1, .start(destinations: [Fixture.secretDestination(1)])) }
        try table.player(0, .start(destinations: [Fixture.secretDestination(1), Fixture.secretDestination(2)]))
        var phases: Set<Phase> = []
        var steps = 0
        while table.game.phase != .roundEnd, steps < 200 {
            steps += 1
            let phase = table.game.phase
            phases.insert(phase)
            expectHostOnlyRefused(&table, by: "p1", in: "\(phase)")
            #expect(throws: GameError.self, "another player pauses in \(phase)") { try table.player(1, .pause) }
            if phase != .lobby {
                try table.player(0, .pause)
                #expect(table.game.pausedSince != nil, "\(phase)")
                try table.player(0, .resume)
            }
            try table.fireNextTimer()
        }
        #expect(phases.isSuperset(of: [.roundIntro, .clueLevel, .revealDestination, .followupQuestion, .scoreboard]))
        #expect(phases.contains(.finalResults))
        try table.player(0, .restart)
        #expect(table.game.phase == .lobby)
        try table.player(0, .end(reason: "host_ended"))
        #expect(table.game.isEnded)
    }

    @Test("a clue stays up longer the longer it is, in a living room's pace")
    func livingRoomPace() {
        let pacing = Pacing.livingRoom
        #expect(pacing.clueMs(for: String(repeating: "a", count: 125)) == 20_000)
        #expect(pacing.clueMs(for: String(repeating: "a", count: 250)) == 30_000)
        #expect(Pacing().clueMs(for: String(repeating: "a", count: 250)) == 20_000, "a kiosk's stays the same")
        #expect(pacing.scaled(by: 0.5).clueMs(for: String(repeating: "a", count: 250)) == 15_000)
    }

    @Test("a host who joins takes the controls; once gone for good the captain has them again")
    func hostComesAndGoes() throws {
        var table = try Table(players: 2, settings: Fixture.settings { $0.autoAdvance = true }, captained: true)
        _ = try table.game.apply(.claimHost("late-host"), by: .box, now: table.now)
        _ = table.game.setConnected("late-host", true, now: table.now)
        #expect(throws: GameError.forbidden("Only the host may do that")) {
            try table.player(0, .start(destinations: [Fixture.secretDestination(1)]))
        }
        _ = try table.game.apply(
            .start(destinations: [Fixture.secretDestination(1)]), by: .participant("late-host"), now: table.now)
        // The host's phone goes; within the grace period the seat is still theirs.
        _ = table.game.setConnected("late-host", false, now: table.now)
        table.advance(table.game.limits.hostGraceMs)
        #expect(throws: GameError.forbidden("Only the host may do that")) { try table.player(0, .pause) }
        table.advance(1)
        try table.player(0, .pause)
        #expect(table.game.pausedSince != nil)
    }

    @Test("a captain who leaves hands the controls to the longest-seated player")
    func captainLeaves() throws {
        var table = try Table(players: 3, settings: Fixture.settings { $0.autoAdvance = true }, captained: true)
        try table.player(0, .leave)
        #expect(table.game.captainId == "p2")
        try table.player(1, .start(destinations: [Fixture.secretDestination(1)]))
        try table.player(1, .leave)
        try table.player(2, .leave)
        #expect(table.game.captainId == nil)
        // The next to join after everyone went has the controls: the game never waits for nobody.
        _ = try table.game.apply(.join(playerId: "p9", name: "Late"), by: .box, now: table.now)
        #expect(table.game.captainId == "p9")
    }

    @Test("a kiosk's box resumes a game its staff paused and left; in a host's game it may not")
    func boxResumes() throws {
        var kiosk = try Table(players: 2, settings: Fixture.settings { $0.autoAdvance = true })
        try kiosk.start()
        try kiosk.host(.pause)
        _ = try kiosk.game.apply(.resume, by: .box, now: kiosk.now)
        #expect(kiosk.game.pausedSince == nil)
        var hosted = try Table(players: 2)
        try hosted.start()
        try hosted.host(.pause)
        #expect(throws: GameError.forbidden("Only the host may do that")) {
            try hosted.game.apply(.resume, by: .box, now: hosted.now)
        }
    }
}
