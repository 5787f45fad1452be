import Core
import Foundation

/// A player's phone on a slow link, for the fair brake's tests: every message it sends takes `upMs`,
/// every message it receives `downMs` (each plus up to `jitterMs`, drawn per message), in order, as
/// on a TCP connection. Its clock runs `offsetMs` away from the box's. It answers the box's clock
/// probes as the player page does: when it has received the probe, from its own clock.
final class LaggedPhone: Sendable {
    struct Link: Sendable {
        var upMs: Int64
        var downMs: Int64
        var jitterMs: Int64 = 0
    }

    let id: String
    let socket: TestSocket
    let link: Link
    let offsetMs: Int64
    private let outgoing: AsyncStream<(ClientMessage, ContinuousClock.Instant)>.Continuation
    private let incoming: AsyncStream<(String, ContinuousClock.Instant)>.Continuation
    private let loops: [Task<Void, Never>]

    private static let epoch = ContinuousClock.now

    /// The phone's clock: monotonic, with its own epoch and offset, as `performance.timeOrigin +
    /// performance.now()` is.
    var clockMs: Int64 { clockMs(at: .now) }

    func clockMs(at instant: ContinuousClock.Instant) -> Int64 {
        let (seconds, attoseconds) = (instant - Self.epoch).components
        return seconds * 1_000 + attoseconds / 1_000_000_000_000_000 + offsetMs
    }

    init(id: String, token: String, url: String, link: Link, offsetMs: Int64) {
        self.id = id
        self.link = link
        self.offsetMs = offsetMs
        let (outStream, outgoing) = AsyncStream.makeStream(of: (ClientMessage, ContinuousClock.Instant).self)
        let (inStream, incoming) = AsyncStream.makeStream(of: (String, ContinuousClock.Instant).self)
        self.outgoing = outgoing
        self.incoming = incoming
        let socket = TestSocket(url: url, token: token) { text, arrival in incoming.yield((text, arrival)) }
        self.socket = socket
        let up = Self.delays(link.upMs, link.jitterMs)
        let down = Self.delays(link.downMs, link.jitterMs)
        let clock = { [offsetMs] in
            let (seconds, attoseconds) = (ContinuousClock.now - Self.epoch).components
            return seconds * 1_000 + attoseconds / 1_000_000_000_000_000 + offsetMs
        }
        loops = [
            Task {
                var delays = up
                for await (message, sentAt) in outStream {
                    await Self.wait(until: sentAt + .milliseconds(delays.next()))
                    socket.send(message)
                }
            },
            Task {
                var delays = down
                for await (text, arrival) in inStream {
                    await Self.wait(until: arrival + .milliseconds(delays.next()))
                    guard text.contains(#""type":"CLOCK_PROBE""#),
                        let message = try? JSONDecoder().decode(ServerMessage.self, from: Data(text.utf8)),
                        case .clockProbe(let probe) = message.event
                    else { continue }
                    outgoing.yield((.clockEcho(.init(probeId: probe.probeId, clientTimeMs: clock())), .now))
                }
            },
        ]
    }

    deinit {
        outgoing.finish()
        incoming.finish()
        for loop in loops { loop.cancel() }
    }

    /// Sends a message over the link.
    func send(_ message: ClientMessage) { outgoing.yield((message, .now)) }

    /// The player presses the brake at `instant` (now, or a moment ahead): the pull says so on the
    /// phone's clock, and leaves then over the link. A test sets up presses a few milliseconds apart
    /// without sleeping between them, so a busy machine cannot stretch the gap.
    func pressBrake(levelPoints: Int? = nil, at instant: ContinuousClock.Instant = .now) {
        outgoing.yield((.brakePull(.init(atClientMs: clockMs(at: instant), levelPoints: levelPoints)), instant))
    }

    /// Forges a press at `instant` that claims to be `earlierMs` before it.
    func pressBrake(claimingEarlierBy earlierMs: Int64, at instant: ContinuousClock.Instant = .now) {
        outgoing.yield((.brakePull(.init(atClientMs: clockMs(at: instant) - earlierMs)), instant))
    }

    private static func wait(until deadline: ContinuousClock.Instant) async {
        if deadline > .now { try? await Task.sleep(until: deadline) }
    }

    /// Each message's delay: `base` plus up to `jitter`, from a generator of its own.
    private struct Delays: Sendable {
        var base: Int64
        var jitter: Int64
        var random: SplitMix64

        mutating func next() -> Int64 { base + (jitter > 0 ? Int64.random(in: 0...jitter, using: &random) : 0) }
    }

    private static func delays(_ base: Int64, _ jitter: Int64) -> Delays {
        Delays(base: base, jitter: jitter, random: SplitMix64(seed: UInt64(base * 7_919 + jitter)))
    }
}
