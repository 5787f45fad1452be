import Core
import Foundation
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOWebSocket
import Synchronization

/// `GET /ws`: which upgrades the box takes, and who a socket's client is: authenticated (header,
/// `?token=` or a HELLO within 5 s) and attached to its session's room. The socket itself is a
/// `SocketHandler` in the channel's pipeline; no task runs for it while it is open.
struct SocketController: Sendable {
    let hub: SessionHub
    let environment: RoomEnvironment
    let open: OpenSockets
    /// Messages above this close the socket with 1009, as the contract says.
    static let maxMessageBytes = 16 * 1024
    static let helloTimeout = TimeAmount.seconds(5)
    /// How long a client may take to answer a close frame.
    static let closeTimeout = TimeAmount.seconds(5)

    static let path = "/ws"

    /// Whether an upgrade request is one for the box's socket: `GET /ws`.
    static func accepts(_ head: HTTPRequestHead) -> Bool {
        head.method == .GET && URI(head.uri).path == path
    }

    /// The token an upgrade request carries: `Authorization: Bearer …`, else `?token=`.
    static func token(of head: HTTPRequestHead) -> String? {
        if let value = head.headers.first(name: "Authorization"), value.lowercased().hasPrefix("bearer ") {
            let token = value.dropFirst("bearer ".count).trimmingCharacters(in: .whitespaces)
            if !token.isEmpty { return token }
        }
        return URI(head.uri).queryParameters.get("token").map { String($0) }
    }

    /// Whether the client asked for STATE_PATCH (`?patches=1`), which it then applies itself.
    static func takesPatches(_ head: HTTPRequestHead) -> Bool {
        URI(head.uri).queryParameters.get("patches") == "1"
    }

    /// Adds the socket's handlers to an upgraded channel, after NIO's frame codec: the keepalive,
    /// the joining of fragmented messages, and the socket itself.
    func install(on channel: any Channel, head: HTTPRequestHead) throws {
        let stopping = !open.add(channel)
        let pipeline = channel.pipeline.syncOperations
        try pipeline.addHandler(Keepalive())
        try pipeline.addHandler(
            NIOWebSocketFrameAggregator(
                minNonFinalFragmentSize: 0, maxAccumulatedFrameCount: 64, maxAccumulatedFrameSize: Self.maxMessageBytes)
        )
        try pipeline.addHandler(
            SocketHandler(
                controller: self, frames: try pipeline.context(handlerType: WebSocketFrameEncoder.self),
                token: Self.token(of: head), takesPatches: Self.takesPatches(head)))
        if stopping {
            // Upgraded while the box was closing its sockets (the client may have read the 101
            // already): this one goes the same way, once the upgrade is over.
            channel.eventLoop.execute { channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent()) }
        }
    }

    /// What became of a socket's client.
    enum Admission: Sendable {
        /// Attached to its room, which now sends it WELCOME and its snapshot.
        case attached(Connection, SessionRoom)
        /// Its session has ended: the client gets this SESSION_ENDED, then close 1000.
        case ended(String)
        /// The token's participant was kicked, left, or was replaced as host or TV: ERROR
        /// UNAUTHORIZED, then close 4001 with the reason REVOKED, as a connection of theirs gets when it
        /// happens.
        case revoked(sessionId: String)
        /// No such token (or no such session): ERROR UNAUTHORIZED, then close 4001.
        case refused
    }

    /// Finds the token's participant and attaches a connection for it, which writes to `socket`.
    func admit(token: String, socket: Connection.Socket, takesPatches: Bool, now: Int64) async -> Admission {
        guard let participant = try? environment.database.participant(token: token, includingRevoked: true) else {
            return .refused
        }
        var turnedAway = participant.revokedAt != nil
        if !turnedAway, let room = await hub.room(id: participant.sessionId) {
            let connection = Connection(
                id: Secrets.token(bytes: 6), participantId: participant.id, role: participant.role,
                takesPatches: takesPatches, socket: socket)
            // The room decides on the state it has saved: the session may have ended, or the
            // participant been kicked (its revocation still on its way to the disk).
            if await room.attach(connection, now: now) { return .attached(connection, room) }
            // An end still on its way to the disk is waited for (a save takes milliseconds): the
            // client hears SESSION_ENDED once it is saved. An end that could not be saved was
            // undone, and the client is let in.
            if await room.isEnded {
                if let reason = await room.savedEnd() {
                    return .ended(WireEncoder.sessionEnded(reason: reason, sessionId: room.id, now: now))
                }
                if await room.attach(connection, now: now) { return .attached(connection, room) }
            }
            turnedAway = true
        }
        if let session = try? environment.database.session(participant.sessionId), let reason = session.endedReason {
            return .ended(WireEncoder.sessionEnded(reason: reason, sessionId: session.id, now: now))
        }
        return turnedAway ? .revoked(sessionId: participant.sessionId) : .refused
    }

    /// On the channel's event loop: the texts as text frames, in order, in one buffer with one
    /// flush; `written` completes once the kernel has them. `frames` is the context of NIO's frame
    /// encoder: they are written from there, past it, since they are frames already.
    static func write(_ texts: [WireText], from frames: ChannelHandlerContext, _ written: EventLoopPromise<Void>) {
        frames.writeAndFlush(NIOAny(textFrames(texts, allocator: frames.channel.allocator)), promise: written)
    }

    /// The texts as a server's text frames (RFC 6455, section 5.2: whole, not masked), one after
    /// the other in one buffer. Through NIO's encoder each frame was a trip down the pipeline, its
    /// text a buffer of its own and its header another: two buffers per frame for the kernel to
    /// gather (docs/performance.md, "Writes batched and framed by the box").
    static func textFrames(_ texts: [WireText], allocator: ByteBufferAllocator) -> ByteBuffer {
        let lengths = texts.map(\.utf8Count)
        // A header takes at most 10 bytes; the length's size is chosen once, below.
        var buffer = allocator.buffer(capacity: lengths.reduce(10 * texts.count, +))
        for (text, length) in zip(texts, lengths) {
            buffer.writeInteger(UInt8(0x81))  // FIN, text
            if length < 126 {
                buffer.writeInteger(UInt8(length))
            } else if length <= Int(UInt16.max) {
                buffer.writeInteger(UInt8(126))
                buffer.writeInteger(UInt16(length))
            } else {
                buffer.writeInteger(UInt8(127))
                buffer.writeInteger(UInt64(length))
            }
            switch text {
            case .whole(let text):
                buffer.writeString(text)
            case .spliced(let head, let own, let tail):
                buffer.writeString(head)
                buffer.writeString(own)
                buffer.writeString(tail)
            }
        }
        return buffer
    }
}

/// The box's open WebSockets. When the box stops, the rooms close theirs; these are closed too
/// (those still being admitted, or refused), and the box waits for all of them, since no task
/// holds the HTTP server open for a socket.
final class OpenSockets: Sendable {
    private struct State {
        var channels: [ObjectIdentifier: any Channel] = [:]
        /// `closeAll` has begun.
        var closing = false
    }

    private let state = Mutex(State())

    /// Keeps `channel` until it closes; false when the box is already closing its sockets (the
    /// caller closes this one too).
    func add(_ channel: any Channel) -> Bool {
        let id = ObjectIdentifier(channel)
        let closing = state.withLock { state in
            state.channels[id] = channel
            return state.closing
        }
        channel.closeFuture.whenComplete { _ in _ = self.state.withLock { $0.channels.removeValue(forKey: id) } }
        return !closing
    }

    var count: Int { state.withLock { $0.channels.count } }

    /// Starts the closing handshake (1001) on every socket that has not started one, and on any
    /// upgraded from now on, and waits until all are closed, or `limit` has passed.
    func closeAll(limit: Duration) async {
        let channels = state.withLock { state in
            state.closing = true
            return Array(state.channels.values)
        }
        for channel in channels {
            channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
        }
        let deadline = ContinuousClock.now + limit
        while count > 0, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
    }
}

/// A socket's incoming messages, checked before they reach the room: within the budget, text,
/// and a message the contract knows; anything else gets its ERROR here.
struct MessageReader {
    let connection: Connection
    let sessionId: String
    var budget = MessageBudget(now: ServerClock.now())
    var lastWarning: Int64 = 0

    init(connection: Connection, sessionId: String) {
        self.connection = connection
        self.sessionId = sessionId
    }

    /// The message, decoded, if it is one for the room. `text` is nil for a binary message.
    mutating func check(_ text: String?, now: Int64) -> ClientMessage? {
        guard budget.spend(now: now) else {
            if now - lastWarning >= 1_000 {
                lastWarning = now
                reply(.rateLimited, "Too many messages; slow down", now: now)
            }
            return nil
        }
        guard let text else {
            reply(.badMessage, "Send JSON text frames, not binary ones", now: now)
            return nil
        }
        do throws(ClientMessage.DecodeError) {
            return try ClientMessage.decode(Data(text.utf8))
        } catch {
            switch error {
            case .badMessage(let reason): reply(.badMessage, reason, now: now)
            case .unknownType(let type): reply(.unknownMessage, "Unknown message type \(type)", now: now)
            }
            return nil
        }
    }

    private func reply(_ code: ErrorCode, _ message: String, now: Int64) {
        connection.send(WireEncoder.error(code, message, sessionId: sessionId, now: now))
    }
}

/// One socket's way into its room: its messages, then its leaving, run by the room in the order
/// they came. The room runs on one of the event loops (`SessionRoom.loop`): a socket on that loop
/// hands it each message as it is read, before the loop reads the next socket; a socket on another
/// loop sends its messages over, in order, with one hop each. No task carries them.
struct RoomInbox: Sendable {
    enum Item: Sendable {
        case message(ClientMessage, now: Int64)
        /// The socket is gone.
        case detach(now: Int64)
    }

    let room: SessionRoom
    let connectionId: String

    /// On the socket's event loop.
    func post(_ item: Item) {
        // A socket can go while the room runs on this loop (the room dropped a client that does
        // not read): its leaving always waits for the room's next turn, never runs inside it.
        if case .message = item, room.loop.inEventLoop {
            run(item)
        } else {
            room.loop.execute { self.run(item) }
        }
    }

    private func run(_ item: Item) {
        room.assumeIsolated { room in
            switch item {
            case .message(let message, let now): room.receive(message, from: connectionId, now: now)
            case .detach(let now): room.detach(connectionId, now: now)
            }
        }
    }
}
