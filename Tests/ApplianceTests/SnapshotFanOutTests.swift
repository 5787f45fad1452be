import Core
import Foundation
import Testing

@testable import Appliance

/// What each connection is sent after a change, without a room: whole snapshots, patches from the
/// last generation, and each player's own `you`.
@Suite("snapshot fan-out", .timeLimit(.minutes(5)))
struct SnapshotFanOutTests {
    struct Seat: SnapshotRecipient {
        let id: String
        let role: Role
        let participantId: ParticipantID
        let takesPatches: Bool
    }

    let now: ServerTime = 1_700_000_000_000

    func game() throws -> Game {
        var game = Game(
            sessionId: "s1", joinCode: "ABCDEF", joinUrl: "http://box/join/s1?t=x",
            settings: Settings(packId: "test", language: .en))
        _ = try game.apply(.claimHost("host"), by: .box, now: now)
        for player in ["p1", "p2"] { _ = try game.apply(.join(playerId: player, name: player), by: .box, now: now) }
        return game
    }

    func texts(_ fanOut: inout SnapshotFanOut, _ seats: [Seat], _ game: Game) -> [[String: Any]] {
        fanOut.texts(
            for: seats, sessionId: "s1", now: now,
            projection: { role, participant in game.projection(for: role, participant: participant, now: now) },
            you: { game.you($0) }
        ).map { try! JSONSerialization.jsonObject(with: Data($0.string.utf8)) as! [String: Any] }
    }

    @Test("the first generation is whole, the next a patch for those who take patches and were sent the last")
    func generations() throws {
        var game = try game()
        let seats = [
            Seat(id: "c-host", role: .host, participantId: "host", takesPatches: true),
            Seat(id: "c-p1", role: .player, participantId: "p1", takesPatches: true),
            Seat(id: "c-p2", role: .player, participantId: "p2", takesPatches: false),
        ]
        var fanOut = SnapshotFanOut()
        let first = texts(&fanOut, seats, game)
        #expect(first.map { $0["type"] as? String } == ["STATE_SNAPSHOT", "STATE_SNAPSHOT", "STATE_SNAPSHOT"])
        // Each player's snapshot carries their own `you`.
        let you = first.map { (($0["payload"] as? [String: Any])?["you"] as? [String: Any])?["playerId"] as? String }
        #expect(you == [nil, "p1", "p2"])

        _ = try game.apply(.join(playerId: "p3", name: "p3"), by: .box, now: now)
        let second = texts(&fanOut, seats, game)
        #expect(second.map { $0["type"] as? String } == ["STATE_PATCH", "STATE_PATCH", "STATE_SNAPSHOT"])
        let patch = try #require(second[1]["payload"] as? [String: Any])
        #expect(patch["baseVersion"] as? Int == (first[1]["payload"] as? [String: Any])?["version"] as? Int)

        // A connection whose base is forgotten (it asked for a snapshot) gets the next one whole.
        fanOut.forget("c-p1")
        let third = texts(&fanOut, seats, game)
        #expect(third.map { $0["type"] as? String } == ["STATE_PATCH", "STATE_SNAPSHOT", "STATE_SNAPSHOT"])
        fanOut.forgetAll()
        let fourth = texts(&fanOut, seats, game)
        #expect(fourth.allSatisfy { $0["type"] as? String == "STATE_SNAPSHOT" })
    }

    @Test("a player's patch applied to their last snapshot gives their own new snapshot")
    func patchesApply() throws {
        var game = try game()
        let seat = Seat(id: "c-p1", role: .player, participantId: "p1", takesPatches: true)
        var fanOut = SnapshotFanOut()
        let first = fanOut.texts(
            for: [seat], sessionId: "s1", now: now,
            projection: { game.projection(for: $0, participant: $1, now: now) }, you: { game.you($0) })
        _ = try game.apply(.join(playerId: "p4", name: "p4"), by: .box, now: now)
        _ = try game.apply(.kick(playerId: "p2"), by: .participant("host"), now: now)
        let second = fanOut.texts(
            for: [seat], sessionId: "s1", now: now,
            projection: { game.projection(for: $0, participant: $1, now: now) }, you: { game.you($0) })
        let snapshot = try JSONDecoder().decode(ServerMessage.self, from: Data(first[0].string.utf8))
        let patch = try JSONDecoder().decode(ServerMessage.self, from: Data(second[0].string.utf8))
        guard case .stateSnapshot(let old) = snapshot.event, case .statePatch(let change) = patch.event else {
            Issue.record("expected a snapshot, then a patch")
            return
        }
        let patched = try JSONValue(json: WireEncoder.json(old)).applying(change.ops)
        let own = game.projection(for: .player, participant: "p1", now: now)
        #expect(patched == (try JSONValue(json: WireEncoder.json(own))))
    }
}
