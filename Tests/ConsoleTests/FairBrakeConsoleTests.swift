import Core
import Foundation
import Synchronization
import Testing

@testable import Console

/// The console's side of the fair brake (CONTRACT 4.1): probes echoed from the clock that stamps
/// the pulls, and the host's view of every player's link.
@Suite("the fair brake in the console", .timeLimit(.minutes(1)))
struct FairBrakeConsoleTests {
    static func message(_ event: ServerEvent) -> ServerMessage {
        ServerMessage(sessionId: "abcdefghijklmnop", serverTimeMs: Fixture.now, event: event)
    }

    /// A clock that says what the test sets.
    final class FakeClock: Sendable {
        let value = Atomic<Int64>(0)
        var clock: MonotonicClock { MonotonicClock { self.value.load(ordering: .relaxed) } }
    }

    @Test("a probe is echoed at once, read from the link's clock; a brake key is stamped from that same clock")
    func echoAndPullShareTheClock() throws {
        let fake = FakeClock()
        let link = Link(url: "ws://127.0.0.1:1/ws", token: "t", clock: fake.clock)
        fake.value.store(5_000_123, ordering: .relaxed)
        let probe = Self.message(.clockProbe(ClockProbe(probeId: 7, serverTimeMs: Fixture.now)))
        #expect(Link.reply(to: probe, clock: link.clock) == .clockEcho(.init(probeId: 7, clientTimeMs: 5_000_123)))
        #expect(Link.reply(to: Fixture.snapshot(Fixture.projection(.clueLevel)), clock: link.clock) == nil)

        // The key pressed a little later, on the same clock: the pull carries that moment.
        fake.value.store(5_000_400, ordering: .relaxed)
        var state = Fixture.state(.player, Fixture.projection(.clueLevel))
        let pressedAt = link.clock.now()
        #expect(
            state.press(.character(" "), at: pressedAt)
                == .send(.brakePull(.init(atClientMs: 5_000_400, levelPoints: 8))))
        // The echo on the wire is the contract's.
        let echo = try #require(Link.reply(to: probe, clock: link.clock))
        let json = try JSONSerialization.jsonObject(with: echo.encoded()) as! [String: Any]
        #expect(json["type"] as? String == "CLOCK_ECHO")
        #expect((json["payload"] as? [String: Any])?["clientTimeMs"] as? Int == 5_000_400)
        // A console state is not changed by a probe.
        let before = state
        state.receive(probe, now: Fixture.now)
        #expect(state.projection == before.projection && state.notice == before.notice)
    }

    @Test("the system clock is monotonic milliseconds")
    func systemClock() async throws {
        let first = MonotonicClock.system.now()
        try await Task.sleep(for: .milliseconds(30))
        let second = MonotonicClock.system.now()
        #expect(second - first >= 29 && second - first < 2000, "\(second - first)")
    }
}
