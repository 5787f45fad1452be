import Core
import Foundation
import HTTPTypes
import HummingbirdWSClient
import Logging
import NIOWebSocket
import Synchronization

/// What the link to the box reports.
enum LinkEvent: Sendable {
    case message(ServerMessage)
    /// The socket dropped; the link is trying again (attempt 1, 2, …).
    case offline(attempt: Int)
    /// The box closed the seat for good: 4001 (`revoked` when its reason is REVOKED: kicked, left,
    /// or replaced), or 1000 once the session ended.
    case closed(code: Int, revoked: Bool)
}

/// The console's WebSocket to the box: one seat's token, reconnecting by itself with backoff until
/// the box closes the seat for good. Messages sent while offline are dropped (the screen says offline).
///
/// The link answers the box's `CLOCK_PROBE`s itself, as soon as each is read, with a `CLOCK_ECHO`
/// stamped from `clock`: the clock the caller stamps `BRAKE_PULL.atClientMs` with (CONTRACT 4.1).
/// With a `lag` (the bots' made-up network), every message each way is held back first, so the
/// probes measure the lagged link as they would a slow phone's.
final class Link: Sendable {
    let events: AsyncStream<LinkEvent>
    /// The clock of the echoes; stamp pulls with the same.
    let clock: MonotonicClock
    private let report: AsyncStream<LinkEvent>.Continuation
    private let outbox = Mutex<AsyncStream<Outgoing>.Continuation?>(nil)
    private let url: String
    private let token: String
    /// When a lag is set: the schedules of the messages going out and of those coming in.
    private let lags: Mutex<(outgoing: LagSchedule, incoming: LagSchedule)?>

    /// A message on its way out, and when it may go (nil: at once).
    private struct Outgoing: Sendable {
        var text: String
        var due: Int64?
    }

    init(url: String, token: String, clock: MonotonicClock = .system, lag: Lag? = nil, seed: UInt64 = 0) {
        self.url = url
        self.token = token
        self.clock = clock
        if let lag, !lag.isZero {
            var seeds = SplitMix64(seed: seed)
            lags = Mutex((LagSchedule(lag, seed: seeds.next()), LagSchedule(lag, seed: seeds.next())))
        } else {
            lags = Mutex(nil)
        }
        (events, report) = AsyncStream.makeStream(of: LinkEvent.self)
    }

    func send(_ message: ClientMessage) {
        let text = String(decoding: message.encoded(), as: UTF8.self)
        outbox.withLock { writer in
            guard let writer else { return }
            writer.yield(Outgoing(text: text, due: lags.withLock { $0?.outgoing.due(now: clock.now()) }))
        }
    }

    /// What the link answers by itself, at once: a probe's echo, read from `clock` now.
    static func reply(to message: ServerMessage, clock: MonotonicClock) -> ClientMessage? {
        guard case .clockProbe(let probe) = message.event else { return nil }
        return .clockEcho(ClientMessage.ClockEcho(probeId: probe.probeId, clientTimeMs: clock.now()))
    }

    /// Sleeps until `due` on `clock`.
    private func wait(until due: Int64?) async throws {
        guard let due else { return }
        let left = due - clock.now()
        if left > 0 { try await Task.sleep(for: .milliseconds(left)) }
    }

    /// A message from the box, once it has arrived (after the lag, if any): probes are answered
    /// first, then everything is reported.
    private func deliver(_ message: ServerMessage) {
        if let reply = Self.reply(to: message, clock: clock) { send(reply) }
        report.yield(.message(message))
    }

    /// Connects, and connects again after every loss, until cancelled or closed for good.
    func run() async {
        var logger = Logger(label: "tripto-console.link")
        logger.logLevel = .critical
        var headers: HTTPFields = [:]
        headers[.authorization] = "Bearer \(token)"
        // The box pings every 6 s; our own pings notice a box that vanished without closing.
        let configuration = WebSocketClientConfiguration(
            maxFrameSize: 1 << 22, additionalHeaders: headers, autoPing: .enabled(timePeriod: .seconds(5)))
        var attempt = 0
        while !Task.isCancelled {
            let heard = Mutex(false)
            let (stream, writer) = AsyncStream.makeStream(of: Outgoing.self)
            outbox.withLock { $0 = writer }
            if attempt > 0 {
                // The box sends a fresh snapshot on connect anyway; RESUME_SESSION asks for it as the contract says.
                send(.resumeSession)
            }
            let report = self.report
            var closeCode: Int?
            var revoked = false
            do {
                let frame = try await WebSocketClient.connect(url: url, configuration: configuration, logger: logger) {
                    inbound, outbound, _ in
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask {
                            for await item in stream {
                                try await self.wait(until: item.due)
                                try await outbound.write(.text(item.text))
                            }
                        }
                        // With a lag, what arrives waits its turn in `arrivals` before it is delivered.
                        let lagging = self.lags.withLock { $0 != nil }
                        let (arrivals, arrive) = AsyncStream.makeStream(of: (ServerMessage, Int64).self)
                        if lagging {
                            group.addTask {
                                for await (message, due) in arrivals {
                                    try await self.wait(until: due)
                                    self.deliver(message)
                                }
                            }
                        }
                        for try await message in inbound.messages(maxSize: 1 << 22) {
                            guard case .text(let text) = message,
                                let decoded = try? JSONDecoder().decode(ServerMessage.self, from: Data(text.utf8))
                            else { continue }
                            heard.withLock { $0 = true }
                            if let due = self.lags.withLock({ $0?.incoming.due(now: self.clock.now()) }) {
                                arrive.yield((decoded, due))
                            } else {
                                self.deliver(decoded)
                            }
                        }
                        arrive.finish()
                        if lagging {
                            // What is still on its way (SESSION_ENDED before the close) arrives first.
                            _ = try? await group.next()
                        }
                        group.cancelAll()
                    }
                }
                closeCode = frame.map { Int(UInt16(webSocketErrorCode: $0.closeCode)) }
                revoked = frame?.reason == SocketClose.revoked.reason
            } catch {
                closeCode = nil
            }
            outbox.withLock { $0 = nil }
            writer.finish()
            // The seat is gone for good (4001: revoked or not accepted) or the session ended: no reconnecting.
            let final = [SocketClose.revoked, .unauthorized, .sessionEnded].map { Int($0.code) }
            if let code = closeCode, final.contains(code) {
                report.yield(.closed(code: code, revoked: revoked))
                report.finish()
                return
            }
            // A connection that worked starts the backoff over.
            attempt = heard.withLock { $0 } ? 1 : attempt + 1
            report.yield(.offline(attempt: attempt))
            let delay = min(5000, 250 << min(attempt, 5))
            try? await Task.sleep(for: .milliseconds(delay))
        }
        report.finish()
    }
}
