import Core
import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOWebSocket

/// `GET /ws`: authenticates a client (header, `?token=` or a HELLO within 5 s), attaches it to its
/// session's room, and then pumps messages both ways until either side goes.
struct SocketController: Sendable {
    let hub: SessionHub
    let environment: RoomEnvironment
    /// Messages above this close the socket with 1009, as the contract says.
    static let maxMessageBytes = 16 * 1024
    static let helloTimeout: Duration = .seconds(5)
    /// How long a client may take to answer a close frame.
    static let closeTimeout: Duration = .seconds(5)

    func addRoutes(to router: Router<BoxRequestContext>) {
        router.ws("/ws") { inbound, outbound, context in
            try await handle(
                inbound: inbound, outbound: outbound, channel: context.requestContext.channel, request: context.request,
                logger: context.logger)
        }
    }

    private func handle(
        inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter, channel: any Channel, request: Request,
        logger: Logger
    ) async throws {
        var messages = Handover(inbound.messages(maxSize: Self.maxMessageBytes).makeAsyncIterator())
        var token = request.bearerToken ?? request.uri.queryParameters.get("token").map { String($0) }
        if token == nil {
            (token, messages) = try await readHello(messages)
        }
        let now = ServerClock.now()
        guard let token, let participant = try? environment.database.participant(token: token) else {
            return try await refuse(outbound, now: now)
        }
        let live = await hub.room(id: participant.sessionId)
        guard let room = live, await !room.isEnded, await room.participantRole(participant.id) != nil else {
            if let session = try? environment.database.session(participant.sessionId), let reason = session.endedReason
            {
                await Self.letUpgradeSettle()
                let event = ServerEvent.sessionEnded(SessionEnded(reason: reason))
                try await outbound.write(
                    .text(WireEncoder.text(ServerMessage(sessionId: session.id, serverTimeMs: now, event: event))))
                try await outbound.close(.normalClosure, reason: "SESSION_ENDED")
                return
            }
            return try await refuse(outbound, now: now)
        }

        // Messages are written on the channel's event loop as they are queued, so the socket needs
        // no task but this one, which reads. A connection dropped for not reading ends at once: its
        // channel is closed, which ends the reading below.
        let connection = Connection(
            id: Secrets.token(bytes: 6), participantId: participant.id, role: participant.role,
            socket: Connection.Socket(
                eventLoop: channel.eventLoop,
                write: { texts, written in Self.write(texts, on: channel, written) },
                close: { code, reason in Self.close(outbound, channel: channel, code: code, reason: reason) },
                end: { channel.close(promise: nil) }))
        guard await room.attach(connection, now: now) else {
            // Ended or kicked between the check above and now.
            return try await refuse(outbound, now: now)
        }
        defer {
            connection.ended()
            Task { await room.detach(connection.id, now: ServerClock.now()) }
        }
        let sessionId = room.id
        func reply(_ code: String, _ message: String) {
            let error = ErrorPayload(code: code, message: message, retryable: code == "RATE_LIMITED")
            let event = ServerEvent.error(error)
            connection.send(
                WireEncoder.text(ServerMessage(sessionId: sessionId, serverTimeMs: ServerClock.now(), event: event)))
        }
        // Each message is checked here, then run by the room in arrival order.
        var budget = MessageBudget(now: ServerClock.now())
        var lastWarning: Int64 = 0
        while let message = try await messages.value.next() {
            let now = ServerClock.now()
            guard budget.spend(now: now) else {
                if now - lastWarning >= 1_000 {
                    lastWarning = now
                    reply("RATE_LIMITED", "Too many messages; slow down")
                }
                continue
            }
            guard case .text(let text) = message else {
                reply("BAD_MESSAGE", "Send JSON text frames, not binary ones")
                continue
            }
            switch Result(catching: { () throws(ClientMessage.DecodeError) in
                try ClientMessage.decode(Data(text.utf8))
            }) {
            case .success(let decoded):
                await room.receive(decoded, from: connection.id, now: ServerClock.now())
            case .failure(.badMessage(let reason)):
                reply("BAD_MESSAGE", reason)
            case .failure(.unknownType(let type)):
                reply("UNKNOWN_MESSAGE", "Unknown message type \(type)")
            }
        }
    }

    /// The closing handshake the room asked for (a kick, the session's end, the box stopping): the
    /// close frame follows everything written before it, and the client's answer ends the reading.
    /// A client that does not answer is cut off after `closeTimeout`.
    private static func close(_ outbound: WebSocketOutboundWriter, channel: any Channel, code: UInt16, reason: String) {
        Task {
            try? await outbound.close(.init(codeNumber: Int(code)), reason: reason)
            try? await Task.sleep(for: closeTimeout)
            channel.close(promise: nil)
        }
    }

    /// On the channel's event loop: text frames with one flush for all of them; `written` completes
    /// once the kernel has them. Hummingbird's writer makes a trip to the event loop and flushes once
    /// per frame, which cost a quarter of the box's CPU under load; the frames take the same way
    /// through the pipeline (its WebSocket frame encoder), in the same order.
    private static func write(_ texts: [String], on channel: any Channel, _ written: EventLoopPromise<Void>) {
        for (index, text) in texts.enumerated() {
            let frame = WebSocketFrame(fin: true, opcode: .text, data: channel.allocator.buffer(string: text))
            channel.write(frame, promise: index == texts.count - 1 ? written : nil)
        }
        channel.flush()
    }

    /// The token of the HELLO that must come first, within 5 s, when the upgrade carried none.
    private func readHello(
        _ messages: Handover<WebSocketInboundMessageStream.AsyncIterator>
    ) async throws -> (String?, Handover<WebSocketInboundMessageStream.AsyncIterator>) {
        try await withThrowingTaskGroup(of: (String?, Handover<WebSocketInboundMessageStream.AsyncIterator>)?.self) {
            group in
            group.addTask {
                var iterator = messages.value
                guard case .text(let text)? = try await iterator.next(),
                    case .hello(let hello)? = try? ClientMessage.decode(Data(text.utf8))
                else { return (nil, Handover(iterator)) }
                return (hello.authToken, Handover(iterator))
            }
            group.addTask {
                try await Task.sleep(for: Self.helloTimeout)
                return nil
            }
            let first = try await group.next() ?? nil
            group.cancelAll()
            return first ?? (nil, messages)
        }
    }

    /// A reply sent in the same instant as the upgrade's 101 response reaches the client in the same
    /// read, and some client libraries (NIO's client upgrader among them) drop such frames and fail
    /// the connection. A refusal, which the box sends at once and then closes, therefore waits a
    /// moment so the client sees why it was refused.
    private static func letUpgradeSettle() async {
        try? await Task.sleep(for: .milliseconds(300))
    }

    /// ERROR UNAUTHORIZED, then close 4001.
    private func refuse(_ outbound: WebSocketOutboundWriter, now: Int64) async throws {
        await Self.letUpgradeSettle()
        let error = ErrorPayload(code: "UNAUTHORIZED", message: "A valid auth token is needed")
        try await outbound.write(
            .text(WireEncoder.text(ServerMessage(sessionId: "", serverTimeMs: now, event: .error(error)))))
        try await outbound.close(.init(codeNumber: 4001), reason: "UNAUTHORIZED")
    }
}

/// Hands a value that is not `Sendable` from one task to the next; only one task uses it at a time.
/// (The socket's message iterator: only one may exist, and the reading moves between child tasks.)
struct Handover<Value>: @unchecked Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
}
