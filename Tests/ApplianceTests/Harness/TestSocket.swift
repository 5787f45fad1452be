import Core
import Foundation
import HTTPTypes
import HummingbirdWSClient
import Logging
import NIOCore
import NIOWebSocket

/// A real WebSocket client of the box: everything it receives is kept in order, and tests wait for
/// the messages they expect.
final class TestSocket: Sendable {
    enum Outgoing: Sendable {
        case text(String)
        case binary([UInt8])
        /// A text frame with exactly these bytes, valid UTF-8 or not.
        case rawText([UInt8])
        case close
    }

    let inbox = Inbox()
    private let outbox: AsyncStream<Outgoing>.Continuation
    /// The server's close frame: its code and reason.
    private let run: Task<(code: Int, reason: String?)?, Never>

    /// Connects with `token` in an Authorization header (or none, for HELLO or refusal tests).
    /// `observe` sees every text as it arrives, before it is kept (`LaggedPhone`).
    init(
        url: String, token: String?, query: String = "",
        observe: (@Sendable (String, ContinuousClock.Instant) -> Void)? = nil
    ) {
        let (stream, continuation) = AsyncStream.makeStream(of: Outgoing.self)
        outbox = continuation
        let inbox = self.inbox
        var headers: HTTPFields = [:]
        if let token { headers[.authorization] = "Bearer \(token)" }
        let configuration = WebSocketClientConfiguration(
            maxFrameSize: 1 << 22, additionalHeaders: headers, autoPing: .disabled)
        run = Task {
            var logger = Logger(label: "test-socket")
            logger.logLevel = .critical
            do {
                let frame = try await WebSocketClient.connect(
                    url: url + query, configuration: configuration, logger: logger
                ) {
                    inbound, outbound, _ in
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask {
                            for await item in stream {
                                switch item {
                                case .text(let text): try await outbound.write(.text(text))
                                case .binary(let bytes): try await outbound.write(.binary(ByteBuffer(bytes: bytes)))
                                case .rawText(let bytes):
                                    try await outbound.write(
                                        .custom(
                                            WebSocketFrame(fin: true, opcode: .text, data: ByteBuffer(bytes: bytes))))
                                case .close:
                                    try await outbound.close(.normalClosure, reason: nil)
                                    return
                                }
                            }
                        }
                        for try await message in inbound.messages(maxSize: 1 << 22) {
                            if case .text(let text) = message {
                                let arrival = ContinuousClock.now
                                observe?(text, arrival)
                                await inbox.append(text, at: arrival)
                            }
                        }
                        continuation.finish()
                        group.cancelAll()
                    }
                }
                await inbox.closed()
                return frame.map { (code: Self.number($0.closeCode), reason: $0.reason) }
            } catch {
                await inbox.closed()
                return nil
            }
        }
    }

    private static func number(_ code: WebSocketErrorCode) -> Int {
        switch code {
        case .normalClosure: 1000
        case .goingAway: 1001
        case .protocolError: 1002
        case .unacceptableData: 1003
        case .dataInconsistentWithMessage: 1007
        case .policyViolation: 1008
        case .messageTooLarge: 1009
        case .missingExtension: 1010
        case .unexpectedServerError: 1011
        case .unknown(let value): Int(value)
        }
    }

    func send(_ message: ClientMessage) { outbox.yield(.text(String(decoding: message.encoded(), as: UTF8.self))) }
    func sendRaw(_ text: String) { outbox.yield(.text(text)) }
    func sendBinary(_ bytes: [UInt8]) { outbox.yield(.binary(bytes)) }
    func sendRawBytes(_ bytes: [UInt8]) { outbox.yield(.rawText(bytes)) }
    func close() { outbox.yield(.close) }

    /// The close code the server sent, once the connection is over.
    func closeCode(timeout: Duration = .seconds(20)) async throws -> Int? {
        try await closeFrame(timeout: timeout)?.code
    }

    /// The server's close code and reason, once the connection is over.
    func closeFrame(timeout: Duration = .seconds(20)) async throws -> (code: Int, reason: String?)? {
        // Polled: the connection's task cannot be cancelled, so it must not be awaited before it ends.
        let deadline = ContinuousClock.now + timeout
        while await !inbox.isClosed {
            guard ContinuousClock.now < deadline else { throw HarnessError.timeout("socket did not close") }
            try await Task.sleep(for: .milliseconds(10))
        }
        return await run.value
    }

    /// The next message of `type` (after the ones already taken) that satisfies `condition`.
    @discardableResult
    func expect(
        _ type: String, timeout: Duration = .seconds(10),
        where condition: @Sendable (ServerMessage) -> Bool = { _ in true }
    )
        async throws -> ServerMessage
    {
        do {
            return try await inbox.take(timeout: timeout) { $0.type == type && condition($0) }
        } catch HarnessError.timeout(let detail) {
            throw HarnessError.timeout("\(type): \(detail)")
        }
    }

    /// The next STATE_SNAPSHOT whose projection satisfies `condition`.
    @discardableResult
    func expectSnapshot(
        timeout: Duration = .seconds(10), where condition: @Sendable (Projection) -> Bool
    ) async throws -> Projection {
        let message = try await expect("STATE_SNAPSHOT", timeout: timeout) { message in
            if case .stateSnapshot(let projection) = message.event { return condition(projection) }
            return false
        }
        guard case .stateSnapshot(let projection) = message.event else {
            throw HarnessError.unexpected("not a snapshot")
        }
        return projection
    }

    /// The newest snapshot received so far, taken or not.
    func latestSnapshot() async throws -> Projection {
        guard case .stateSnapshot(let projection)? = await inbox.latest(ofType: "STATE_SNAPSHOT")?.event else {
            throw HarnessError.unexpected("no snapshot yet")
        }
        return projection
    }

    /// Every raw text received so far.
    func allTexts() async -> [String] { await inbox.texts }

    /// Like `expect`, with the moment the message arrived (for latency measurements).
    func expectArrival(
        _ type: String, timeout: Duration = .seconds(10),
        where condition: @Sendable (ServerMessage) -> Bool = { _ in true }
    ) async throws -> ContinuousClock.Instant {
        try await expect(type, timeout: timeout, where: condition)
        return await inbox.lastTakenArrival
    }
}

/// What a socket received, and waiting for more.
actor Inbox {
    private(set) var texts: [String] = []
    private var messages: [ServerMessage?] = []
    private var arrivals: [ContinuousClock.Instant] = []
    private var lastTaken = 0
    private var taken = Set<Int>()
    private(set) var isClosed = false

    func append(_ text: String, at arrival: ContinuousClock.Instant) {
        texts.append(text)
        arrivals.append(arrival)
        messages.append(try? JSONDecoder().decode(ServerMessage.self, from: Data(text.utf8)))
    }

    func closed() { isClosed = true }

    /// When the message that `take` returned last arrived.
    var lastTakenArrival: ContinuousClock.Instant { arrivals[lastTaken] }

    func latest(ofType type: String) -> ServerMessage? {
        messages.last { $0?.type == type } ?? nil
    }

    func take(timeout: Duration, where condition: (ServerMessage) -> Bool) async throws -> ServerMessage {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while true {
            for (index, message) in messages.enumerated() where !taken.contains(index) {
                if let message, condition(message) {
                    // Messages before this one are passed over for good.
                    taken.formUnion(0...index)
                    lastTaken = index
                    return message
                }
            }
            if clock.now >= deadline || (isClosed && !messages.indices.contains { !taken.contains($0) }) {
                let types = messages.enumerated().filter { !taken.contains($0.offset) }.compactMap { $0.element?.type }
                throw HarnessError.timeout("expected message not received; unread: \(types.suffix(12))")
            }
            try await Task.sleep(for: .milliseconds(5))
        }
    }
}
