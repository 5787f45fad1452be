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
final class Link: Sendable {
    let events: AsyncStream<LinkEvent>
    /// The clock of the echoes; stamp pulls with the same.
    let clock: MonotonicClock
    private let report: AsyncStream<LinkEvent>.Continuation
    private let outbox = Mutex<AsyncStream<String>.Continuation?>(nil)
    private let url: String
    private let token: String

    init(url: String, token: String, clock: MonotonicClock = .system) {
        self.url = url
        self.token = token
        self.clock = clock
        (events, report) = AsyncStream.makeStream(of: LinkEvent.self)
    }

    func send(_ message: ClientMessage) {
        let text = String(decoding: message.encoded(), as: UTF8.self)
        outbox.withLock { _ = $0?.yield(text) }
    }

    /// What the link answers by itself, at once: a probe's echo, read from `clock` now.
    static func reply(to message: ServerMessage, clock: MonotonicClock) -> ClientMessage? {
        guard case .clockProbe(let probe) = message.event else { return nil }
        return .clockEcho(ClientMessage.ClockEcho(probeId: probe.probeId, clientTimeMs: clock.now()))
    }

    /// A message from the box: probes are answered first, then everything is reported.
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
            let (stream, writer) = AsyncStream.makeStream(of: String.self)
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
                            for await text in stream { try await outbound.write(.text(text)) }
                        }
                        for try await message in inbound.messages(maxSize: 1 << 22) {
                            guard case .text(let text) = message,
                                let decoded = try? JSONDecoder().decode(ServerMessage.self, from: Data(text.utf8))
                            else { continue }
                            heard.withLock { $0 = true }
                            self.deliver(decoded)
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
