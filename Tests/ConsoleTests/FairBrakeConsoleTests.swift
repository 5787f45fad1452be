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
        // Compared with the continuous clock over the same stretch, however long a busy machine
        // makes it: milliseconds, not micro- or nanoseconds, and never going back. The continuous
        // clock is read just inside and just outside the two reads, so a preemption between a read
        // and its neighbour widens the bounds instead of failing the test.
        func milliseconds(_ duration: Duration) -> Int64 {
            let (seconds, attoseconds) = duration.components
            return seconds * 1_000 + attoseconds / 1_000_000_000_000_000
        }
        let outerStart = ContinuousClock.now
        let first = MonotonicClock.system.now()
        let innerStart = ContinuousClock.now
        try await Task.sleep(for: .milliseconds(30))
        let innerEnd = ContinuousClock.now
        let second = MonotonicClock.system.now()
        let outerEnd = ContinuousClock.now
        let (inner, outer) = (milliseconds(innerEnd - innerStart), milliseconds(outerEnd - outerStart))
        #expect(second - first >= 29, "\(second - first)")
        #expect((inner - 1...outer + 1).contains(second - first), "\(second - first) against \(inner)–\(outer)")
    }

    @Test("--lag parses MS or MS:JITTER and refuses anything else")
    func lagParsing() {
        #expect(Lag(parsing: "40:10") == Lag(ms: 40, jitterMs: 10))
        #expect(Lag(parsing: "120") == Lag(ms: 120, jitterMs: 0))
        #expect(Lag(parsing: "0") == Lag(ms: 0))
        for bad in ["", "x", "-5", "40:", ":10", "40:10:2", "40:-1", "20000"] {
            #expect(Lag(parsing: bad) == nil, "\(bad)")
        }
        #expect(Lag(ms: 40, jitterMs: 10).description == "40±10 ms")
    }

    @Test("a lag schedule holds each message back by MS ± JITTER, never reorders them, and repeats with its seed")
    func lagSchedule() {
        var schedule = LagSchedule(Lag(ms: 40, jitterMs: 10), seed: 3)
        var delays: [Int64] = []
        var last = Int64.min
        for step in 0..<2000 {
            let now = Int64(step * 3)
            let due = schedule.due(now: now)
            #expect(due >= last)
            #expect(due >= now + 30)
            last = due
            delays.append(schedule.delay())
        }
        #expect(delays.allSatisfy { (30...50).contains($0) })
        #expect(delays.contains(30) && delays.contains(50))
        let mean = Double(delays.reduce(0, +)) / Double(delays.count)
        #expect(abs(mean - 40) < 1.5, "\(mean)")
        var again = LagSchedule(Lag(ms: 40, jitterMs: 10), seed: 3)
        var other = LagSchedule(Lag(ms: 40, jitterMs: 10), seed: 3)
        #expect((0..<20).map { _ in again.delay() } == (0..<20).map { _ in other.delay() })
        // A jitter larger than the lag does not go below zero.
        var wide = LagSchedule(Lag(ms: 5, jitterMs: 50), seed: 1)
        #expect((0..<500).allSatisfy { _ in wide.delay() >= 0 })
    }

    /// A host in `phase` that has heard CONNECTION_QUALITY for the fixture's three players.
    static func host(_ phase: Phase, links: [ConnectionQuality.Link]) -> ConsoleState {
        var state = Fixture.state(.host, Fixture.projection(phase))
        state.receive(message(.connectionQuality(ConnectionQuality(players: links))), now: Fixture.now)
        return state
    }

    @Test("what a poor link is: a round trip over 250 ms, jitter over 60 ms, or no clock once a round trip is known")
    func poorLink() {
        func link(_ rtt: Int64?, _ jitter: Int64?, _ clockOk: Bool) -> ConnectionQuality.Link {
            ConnectionQuality.Link(playerId: "p", rttMs: rtt, jitterMs: jitter, clockOk: clockOk)
        }
        #expect(!link(250, 60, true).isPoor)
        #expect(link(251, 0, true).isPoor)
        #expect(link(40, 61, true).isPoor)
        #expect(link(40, 5, false).isPoor)
        // Not measured yet (or a client that never echoes): nothing to say.
        #expect(!link(nil, nil, false).isPoor)
        #expect(link(nil, nil, false).roundTripText == nil)
        #expect(link(45, 3, true).roundTripText == "45 ms")
        #expect(link(320, 3, true).roundTripText == "320 ms (slow)")
    }

    @Test("the host's lobby shows each player's round trip, and a plain warning for a slow one")
    func hostLobby() {
        let state = Self.host(
            .lobby,
            links: [
                .init(playerId: "p_0", rttMs: 45, jitterMs: 4, clockOk: true),
                .init(playerId: "p_1", rttMs: 320, jitterMs: 20, clockOk: true),
                .init(playerId: "p_2", rttMs: nil, jitterMs: nil, clockOk: false),
            ])
        let lines = Screen.render(state, width: 80, height: 24, now: Fixture.now)
        #expect(lines.contains("Player 2's phone is on a slow connection"), "\(lines)")
        #expect(lines.contains { $0.contains("1. Player 1  10 p  · 45 ms") }, "\(lines)")
        #expect(lines.contains { $0.contains("2. Player 2  9 p  · 320 ms (slow)") })
        #expect(lines.contains { $0.hasSuffix("3. Player 3  8 p") })
        // Only the host hears CONNECTION_QUALITY; a player's list has no round trips anyway.
        let player = Screen.render(Fixture.state(.player, Fixture.projection(.lobby)), width: 80, height: 24, now: 0)
        #expect(!player.joined().contains(" ms"))
    }

    @Test(
        "during the game the host sees every round trip below the clue, and the warning on top; a new report replaces it"
    )
    func hostDuringClue() {
        var state = Self.host(
            .clueLevel,
            links: [
                .init(playerId: "p_0", rttMs: 45, jitterMs: 4, clockOk: true),
                .init(playerId: "p_1", rttMs: 80, jitterMs: 75, clockOk: true),
                .init(playerId: "p_2", rttMs: 60, jitterMs: 2, clockOk: false),
            ])
        var lines = Screen.render(state, width: 100, height: 30, now: Fixture.now)
        #expect(lines[2] == "Player 2 and Player 3 are on slow connections", "\(lines)")
        #expect(lines.contains("Round trips: Player 1 45 ms · Player 2 80 ms (slow) · Player 3 60 ms (slow)"))
        state.receive(
            Self.message(
                .connectionQuality(
                    ConnectionQuality(players: [.init(playerId: "p_0", rttMs: 50, jitterMs: 4, clockOk: true)]))),
            now: Fixture.now)
        lines = Screen.render(state, width: 100, height: 30, now: Fixture.now)
        #expect(!lines.joined().contains("slow"))
        #expect(lines.contains("Round trips: Player 1 50 ms"))
        // The kick list numbers the players with their round trips.
        state.hostMode = .kick
        lines = Screen.render(state, width: 100, height: 30, now: Fixture.now)
        #expect(lines.contains { $0.contains("1. Player 1  10 p  · 50 ms") })
    }

    @Test("every host screen with round trips and warnings still fits the terminal")
    func hostFits() {
        let links = (0..<3).map {
            ConnectionQuality.Link(playerId: "p_\($0)", rttMs: 300 + Int64($0), jitterMs: 90, clockOk: false)
        }
        for phase in Phase.allCases {
            let state = Self.host(phase, links: links)
            for (width, height) in ScreenTests.sizes {
                let lines = Screen.render(state, width: width, height: height, now: Fixture.now)
                #expect(lines.count == height)
                #expect(lines.allSatisfy { $0.count <= width }, "\(phase) \(width)×\(height)")
            }
        }
    }
}
