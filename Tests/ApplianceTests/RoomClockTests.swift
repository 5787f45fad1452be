import Core
import Foundation
import Synchronization
import Testing

@testable import Appliance

/// The box's time only goes forward: its clock does not follow the system clock's steps, and a
/// room never stamps anything before what it took earlier.
@Suite("The box's clock", .timeLimit(.minutes(5)))
struct RoomClockTests {
    @Test("the wall clock read once is carried forward by the monotonic clock")
    func carriedForward() {
        let start = ContinuousClock.now
        let epochMs = 1_790_000_000_000.0
        #expect(ServerClock.milliseconds(since: epochMs, at: start, now: start) == 1_790_000_000_000)
        #expect(ServerClock.milliseconds(since: epochMs, at: start, now: start + .seconds(3_600)) == 1_790_003_600_000)
        #expect(
            ServerClock.milliseconds(since: epochMs, at: start, now: start + .microseconds(1_499)) == 1_790_000_000_001)
        #expect(
            ServerClock.milliseconds(since: epochMs + 0.6, at: start, now: start + .milliseconds(2))
                == 1_790_000_000_003)
        // With no step since the box started, it agrees with the wall clock: a wall reading lies
        // between two of the box's (to the millisecond each is rounded to).
        let before = ServerClock.now()
        let wall = Int64((Date().timeIntervalSince1970 * 1000).rounded())
        let after = ServerClock.now()
        #expect(before - 1 <= wall && wall <= after + 1, "\(before) \(wall) \(after)")
    }

    @Test("a message stamped before one the room has taken is answered at the room's later time")
    func roomNeverGoesBack() async throws {
        let test = try await TestRoom.open()
        let (room, start) = (test.room, test.start)
        let written = TestRoom.Written()
        let host = test.hostConnection("host-socket", into: written)
        #expect(await room.attach(host, now: start + 10))
        // The second PING was read first, on another loop, and reached the room after the first.
        for (index, stamp) in [50, 20, 60].enumerated() {
            await room.receive(.ping(.init(clientTimeMs: Int64(index))), from: host.id, now: start + Int64(stamp))
        }

        let messages = try await waitFor(written) { $0.filter { $0["type"] as? String == "PONG" }.count == 3 }
        // WELCOME, STATE_SNAPSHOT, the PONGs and perhaps the presence change's LOBBY_UPDATED and
        // snapshot (100 ms after the connection came, at the room's time then): in the order
        // written, the stamps never go back.
        let stamps = messages.compactMap { ($0["serverTimeMs"] as? Int).map { Int64($0) - start } }
        #expect(stamps.count == messages.count)
        #expect(stamps == stamps.sorted(), "\(stamps)")
        let pongs = messages.filter { $0["type"] as? String == "PONG" }.compactMap {
            ($0["payload"] as? [String: Any])?["serverTimeMs"] as? Int
        }.map { Int64($0) - start }
        #expect(pongs.count == 3 && pongs[0] >= 50 && pongs[1] >= pongs[0] && pongs[2] >= 60, "\(pongs)")
        await room.closeAll(.boxShuttingDown)
    }

    /// The messages written so far, once `done` says they are all there (within 5 s).
    private func waitFor(_ written: TestRoom.Written, _ done: ([[String: Any]]) -> Bool) async throws -> [[String: Any]]
    {
        let deadline = ContinuousClock.now + .seconds(5)
        while true {
            let messages = try written.texts.withLock { $0 }.map {
                try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
            }
            if done(messages) { return messages }
            try #require(ContinuousClock.now < deadline, "only these messages: \(messages)")
            try await Task.sleep(for: .milliseconds(10))
        }
    }
}
