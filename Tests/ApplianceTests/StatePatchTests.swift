import Foundation
import Testing

@testable import Appliance
@testable import Core

/// STATE_PATCH: a client that applies each patch to the projection it has must end up with exactly
/// the projection a STATE_SNAPSHOT would have given it.
@Suite("state patches", .timeLimit(.minutes(5)))
struct StatePatchTests {
    /// Projections of a 40-player lobby changed at random, step after step, the way games change
    /// them (points, presence, joins and leaves, a reordered scoreboard, brakes, timers, an end).
    @Test("a patch turns the old projection's JSON into the new one's, whatever changed")
    func randomChanges() throws {
        var generator = SplitMix64(seed: 20_261_124)
        var game = Game(
            sessionId: "s1", joinCode: "ABCDEF", joinUrl: "http://box/join/s1?t=x",
            settings: Settings(packId: "test", language: .en))
        _ = try game.apply(.claimHost("host"), by: .box, now: 1)
        for n in 0..<40 { _ = try game.apply(.join(playerId: "p\(n)", name: "Player \(n) \"Q\""), by: .box, now: 1) }
        var old = game.projection(for: .player, participant: "p0", now: 1)
        var shortPatches = 0
        for step in 0..<400 {
            var new = old
            new.version += 1
            for _ in 0..<Int.random(in: 1...3, using: &generator) { Self.change(&new, step: step, using: &generator) }
            let patch = ProjectionPatch(from: old, to: new)
            let you = ProjectionPatch.you(from: old.you, to: new.you)
            let text = "[" + (patch.operations + (you.map { [$0] } ?? [])).joined(separator: ",") + "]"
            let operations = try JSONDecoder().decode([PatchOperation].self, from: Data(text.utf8))
            let patched = try JSONValue(json: WireEncoder.json(old)).applying(operations)
            #expect(patched == (try JSONValue(json: WireEncoder.json(new))), "step \(step): \(text)")
            if text.utf8.count < WireEncoder.json(new).utf8.count / 4 { shortPatches += 1 }
            old = new
        }
        // Most single changes are a small part of the whole (a patch that always replaced
        // everything would pass the check above).
        #expect(shortPatches > 260)
    }

    private static func change(_ projection: inout Projection, step: Int, using generator: inout SplitMix64) {
        let ids = projection.players.map(\.playerId)
        switch Int.random(in: 0..<12, using: &generator) {
        case 0 where !ids.isEmpty:
            let index = Int.random(in: ids.indices, using: &generator)
            projection.players[index].points += 2
        case 1 where !ids.isEmpty:
            let index = Int.random(in: ids.indices, using: &generator)
            projection.players[index].isConnected.toggle()
        case 2:
            projection.players.append(
                PlayerView(playerId: "n\(step)", name: "New \(step)", isConnected: true, points: 0))
        case 3 where !ids.isEmpty:
            projection.players.remove(at: Int.random(in: ids.indices, using: &generator))
        case 4:
            projection.scoreboard = projection.players.map {
                Standing(playerId: $0.playerId, name: $0.name, points: $0.points)
            }
            .sorted { $0.points > $1.points }
        case 5:
            projection.phase = Phase.allCases.randomElement(using: &generator)!
            projection.paused.toggle()
        case 6:
            projection.brake =
                projection.brake == nil
                ? Projection.Brake(brakeOwnerPlayerId: ids.first ?? "x", levelPoints: 8, deadlineServerMs: Int64(step))
                : nil
        case 7:
            projection.clue = Projection.Clue(
                levelPoints: 10 - 2 * (step % 5), clueText: "Clue \(step) / ~", levelIndex: step % 5 + 1, totalLevels: 5
            )
        case 8 where !ids.isEmpty:
            if projection.lockedAnswers.count < 5 || Bool.random(using: &generator) {
                projection.lockedAnswers.append(
                    Projection.LockedAnswer(playerId: ids.randomElement(using: &generator)!, lockedAtLevelPoints: 6))
            } else {
                projection.lockedAnswers.removeAll()
            }
        case 9:
            let timer = TimerView(
                timerId: "t\(step)", startAtServerMs: Int64(step), durationMs: 5_000, phase: projection.phase,
                remainingMs: Bool.random(using: &generator) ? 1_200 : nil)
            projection.timers = Bool.random(using: &generator) ? [timer] : []
        case 10:
            projection.endedReason = projection.endedReason == nil ? "host_ended" : nil
        default:
            projection.you?.points += 1
            projection.you?.rank = Int.random(in: 1...40, using: &generator)
        }
    }
}

/// Over real sockets: each participant connected twice, once taking patches, through a whole game.
@Suite("state patches on the wire", .serialized, .timeLimit(.minutes(5)))
struct LiveStatePatchTests {
    let box: BoxProcess

    init() async throws {
        box = try BoxProcess()
        try await box.start()
    }

    @Test("a client applying patches goes through every state a client of snapshots is sent")
    func patchedEqualsSnapshots() async throws {
        // The host closes the followup: its own timer must not beat the test to it.
        let table = try await LiveTable.open(
            box, settings: LiveGameTests.quick.merging(["followupSeconds": 120]) { $1 })
        let patches = "?patches=1"
        var pairs = [(table.host!, TestSocket(url: box.webSocketURL, token: table.hostToken, query: patches))]
        pairs.append((try #require(table.tv), TestSocket(url: box.webSocketURL, token: table.tvToken, query: patches)))
        for player in table.players {
            pairs.append((player.socket, TestSocket(url: box.webSocketURL, token: player.token, query: patches)))
        }
        for (_, twin) in pairs { try await twin.expect("WELCOME") }
        try await table.settle()

        table.host.send(.hostStartGame)
        try await table.allSee(.clueLevel, level: 10)
        let name = try await table.destinationName()
        try await table.brakeAndAnswer(0, name)
        try await table.allSee(.clueLevel, level: 8)
        table.players[1].socket.send(.brakePull(.init()))
        try await table.host.expectSnapshot { $0.phase == .pausedForBrake }
        table.host.send(.hostForceReveal)
        try await table.allSee(.revealDestination)
        table.host.send(.hostNext)
        try await table.allSee(.followupQuestion)
        for (index, player) in table.players.enumerated() {
            player.socket.send(.followupAnswerSubmit(.init(index: 1, answerText: "answer \(index)")))
        }
        try await table.settle()
        table.host.send(.hostNext)  // closes it
        try await table.host.expect("FOLLOWUP_RESULTS")
        table.host.send(.hostNext)
        try await table.allSee(.scoreboard)
        // A twin asks for the whole state again: its patches go on from there.
        let resumed = pairs[2].1
        resumed.send(.resumeSession)
        // The only whole snapshot it gets on the scoreboard is the answer (patches are not snapshots).
        try await resumed.expectSnapshot { $0.phase == .scoreboard }
        table.players[2].socket.send(.playerLeave)
        try await table.host.expect("PLAYER_LEFT")
        table.host.send(.hostNext)
        try await table.host.expectSnapshot { $0.round?.index == 2 }
        table.host.send(.hostForceReveal)
        try await table.host.expectSnapshot { $0.phase == .revealDestination }
        try await table.settle()

        for (plain, twin) in pairs {
            let sent = try await plain.allTexts().map { try JSONValue(json: $0) }
            let snapshots = sent.filter { $0["type"] == .string("STATE_SNAPSHOT") }.compactMap { $0["payload"] }
            let patched = try await twin.patchedStates()
            // Whole: the snapshot on connecting and the first change after it, and the same after
            // RESUME_SESSION.
            #expect(patched.whole == (twin === resumed ? 4 : 2))
            #expect(patched.patched.count >= 8)
            // Compared as booleans: a failure would print every projection otherwise.
            let lastMatches = patched.last != nil && patched.last == snapshots.last
            #expect(lastMatches, "the last state differs from the last snapshot")
            let strays = patched.patched.indices.filter { !snapshots.contains(patched.patched[$0]) }
            #expect(strays.isEmpty, "patched states never sent as snapshots: \(strays)")
        }
        table.closeAll()
        for (_, twin) in pairs { twin.close() }
    }
}
