import Core
import Foundation
import Testing

@testable import Appliance

/// A player's snapshot put together from the shared text must say exactly what encoding their whole
/// projection says, whatever the names hold. (Compared decoded: the encoder's key order varies.)
@Suite("player snapshots", .timeLimit(.minutes(5)))
struct PlayerSnapshotTests {
    @Test("the shared snapshot with each player's own part equals their own encoding")
    func splicedEqualsWhole() throws {
        let now: ServerTime = 1_700_000_000_000
        var game = Game(
            sessionId: "s1", joinCode: "ABCDEF", joinUrl: "http://box/join/s1?t=x",
            settings: Settings(packId: "test", language: .en))
        _ = try game.apply(.claimHost("host"), by: .box, now: now)
        // Names that hold the very text the splice looks for, and JSON's special characters.
        let names = [#""you":null"#, #"Ann "Q" \ /"#, "Björn", #"x"you":null}"#]
        for (n, name) in names.enumerated() {
            _ = try game.apply(.join(playerId: "p\(n)", name: name), by: .box, now: now)
            _ = game.setConnected("p\(n)", true, now: now)
        }
        func check() {
            let shared = WireEncoder.playerSnapshot(
                game.projection(for: .player, participant: nil, now: now), sessionId: "s1", now: now)
            for n in names.indices {
                let whole = WireEncoder.text(
                    ServerMessage(
                        sessionId: "s1", serverTimeMs: now,
                        event: .stateSnapshot(game.projection(for: .player, participant: "p\(n)", now: now))))
                let spliced = shared.text(for: game.you("p\(n)")).string
                let decoded = try? JSONDecoder().decode(ServerMessage.self, from: Data(spliced.utf8))
                #expect(decoded == (try? JSONDecoder().decode(ServerMessage.self, from: Data(whole.utf8))))
                #expect(decoded != nil)
            }
        }
        check()
        // The snapshot after a WELCOME is cut out of it: the same as its own encoding.
        for role in [Role.host, .tv, .player] {
            let projection = game.projection(for: role, participant: role == .player ? "p1" : "host", now: now)
            let welcome = Welcome(
                connectionId: "c1", serverTimeMs: now, timeOffsetHintMs: 0, role: role, playerId: "p1",
                projection: projection)
            let texts = WireEncoder.welcome(welcome, sessionId: "s1", now: now)
            let own = WireEncoder.text(
                ServerMessage(sessionId: "s1", serverTimeMs: now, event: .stateSnapshot(projection)))
            #expect(texts.snapshot == own)
            let decoded = try JSONDecoder().decode(ServerMessage.self, from: Data(texts.welcome.utf8))
            #expect(decoded == ServerMessage(sessionId: "s1", serverTimeMs: now, event: .welcome(welcome)))
        }
        // An ended session's snapshot has a key after `you`.
        _ = try game.apply(.end(reason: "host_ended"), by: .participant("host"), now: now)
        check()
    }
}
