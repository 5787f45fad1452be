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
            let channel = context.requestContext.channel
            Keepalive.install(on: channel, logger: environment.logger)
            guard
                let (connection, room, messages) = try await admit(
                    inbound: inbound, outbound: outbound, channel: channel, request: context.request)
            else { return }
            try await serve(connection, in: room, messages: messages)
        }
    }

    /// The socket's client, authenticated and attached to its room; nil once it was refused.
    /// (Apart from `serve`, which runs for as long as the socket: what is only needed to get there
    /// does not stay in every socket's task memory.)
    private func admit(
        inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter, channel: any Channel, request: Request
    ) async throws -> (Connection, SessionRoom, Handover<WebSocketInboundMessageStream.AsyncIterator>)? {
        var messages = Handover(inbound.messages(maxSize: Self.maxMessageBytes).makeAsyncIterator())
        var token = request.bearerToken ?? request.uri.queryParameters.get("token").map { String($0) }
        if token == nil {
            (token, messages) = try await readHello(messages)
        }
        let now = ServerClock.now()
        guard let token, let participant = try? environment.database.participant(token: token) else {
            try await refuse(outbound, now: now)
            return nil
        }
        let live = await hub.room(id: participant.sessionId)
        guard let room = live, await !room.isEnded, await room.participantRole(participant.id) != nil else {
            if let session = try? environment.database.session(participant.sessionId), let reason = session.endedReason
            {
                await Self.letUpgradeSettle()
                try await outbound.write(
                    .text(WireEncoder.sessionEnded(reason: reason, sessionId: session.id, now: now)))
                try await outbound.close(.normalClosure, reason: "SESSION_ENDED")
                return nil
            }
            try await refuse(outbound, now: now)
            return nil
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
            try await refuse(outbound, now: now)
            return nil
        }
        return (connection, room, messages)
    }

    /// Reads the client's messages until the socket goes.
    private func serve(
        _ connection: Connection, in room: SessionRoom, messages: Handover<WebSocketInboundMessageStream.AsyncIterator>
    ) async throws {
        var messages = messages
        defer {
            connection.ended()
            Task { await room.detach(connection.id, now: ServerClock.now()) }
        }
        // Each message is checked here, then run by the room in arrival order.
        var reader = MessageReader(connection: connection, sessionId: room.id)
        while let message = try await messages.value.next() {
            if let command = reader.check(message) {
                await room.receive(command, from: connection.id, now: ServerClock.now())
            }
        }
    }

    /// The closing handshake the room asked for (a kick, the session's end, the box stopping): the
    /// close frame follows everything written before it, and the client's answer ends the reading.
    /// A client that does not answer is cut off after `closeTimeout` (by the event loop, so no task
    /// waits that long; the channel of a client that answered is closed already, and that is a no-op).
    private static func close(_ outbound: WebSocketOutboundWriter, channel: any Channel, code: UInt16, reason: String) {
        Task {
            try? await outbound.close(.init(codeNumber: Int(code)), reason: reason)
            channel.eventLoop.scheduleTask(in: TimeAmount(closeTimeout)) { channel.close(promise: nil) }
        }
    }

    /// On the channel's event loop: text frames with one flush for all of them; `written` completes
    /// once the kernel has them. Hummingbird's writer makes a trip to the event loop and flushes once
    /// per frame, which cost a quarter of the box's CPU under load; the frames take the same way
    /// through the pipeline (its WebSocket frame encoder), in the same order.
    private static func write(_ texts: [WireText], on channel: any Channel, _ written: EventLoopPromise<Void>) {
        for (index, text) in texts.enumerated() {
            let data: ByteBuffer
            switch text {
            case .whole(let text):
                data = channel.allocator.buffer(string: text)
            case .spliced(let head, let you, let tail):
                var buffer = channel.allocator.buffer(capacity: head.utf8.count + you.utf8.count + tail.utf8.count)
                buffer.writeString(head)
                buffer.writeString(you)
                buffer.writeString(tail)
                data = buffer
            }
            let frame = WebSocketFrame(fin: true, opcode: .text, data: data)
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
        try await outbound.write(
            .text(WireEncoder.error("UNAUTHORIZED", "A valid auth token is needed", sessionId: "", now: now)))
        try await outbound.close(.init(codeNumber: 4001), reason: "UNAUTHORIZED")
    }
}

/// A socket's incoming messages, checked before they reach the room: within the budget, text,
/// and a message the contract knows; anything else gets its ERROR here. (Synchronous, so that
/// what it builds takes no room in the socket's long-lived task.)
private struct MessageReader {
    let connection: Connection
    let sessionId: String
    var budget = MessageBudget(now: ServerClock.now())
    var lastWarning: Int64 = 0

    init(connection: Connection, sessionId: String) {
        self.connection = connection
        self.sessionId = sessionId
    }

    /// The message, decoded, if it is one for the room.
    mutating func check(_ message: WebSocketMessage) -> ClientMessage? {
        let now = ServerClock.now()
        guard budget.spend(now: now) else {
            if now - lastWarning >= 1_000 {
                lastWarning = now
                reply("RATE_LIMITED", "Too many messages; slow down")
            }
            return nil
        }
        guard case .text(let text) = message else {
            reply("BAD_MESSAGE", "Send JSON text frames, not binary ones")
            return nil
        }
        do throws(ClientMessage.DecodeError) {
            return try ClientMessage.decode(Data(text.utf8))
        } catch {
            switch error {
            case .badMessage(let reason): reply("BAD_MESSAGE", reason)
            case .unknownType(let type): reply("UNKNOWN_MESSAGE", "Unknown message type \(type)")
            }
            return nil
        }
    }

    private func reply(_ code: String, _ message: String) {
        connection.send(WireEncoder.error(code, message, sessionId: sessionId, now: ServerClock.now()))
    }
}

/// Hands a value that is not `Sendable` from one task to the next; only one task uses it at a time.
/// (The socket's message iterator: only one may exist, and the reading moves between child tasks.)
struct Handover<Value>: @unchecked Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
}
