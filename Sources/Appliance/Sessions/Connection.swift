import Core
import NIOCore
import Synchronization

/// One WebSocket client of a session: who it is, and the messages on their way to its socket.
///
/// Messages are written on the socket's event loop: whatever was queued since the last trip there
/// goes out with one write to the kernel, straight from the thread that queued it (a room, or the
/// journal releasing a save's messages); no task waits to write them. A client that stops reading
/// is dropped once `queueLimit` messages, or `queueByteLimit` bytes, wait for it, queued or not yet
/// taken by the kernel; it never slows the others. A close goes out after everything queued before it.
final class Connection: Sendable {
    enum Outgoing: Sendable {
        case text(WireText)
        case close(SocketClose)
    }

    /// How a connection reaches its socket.
    struct Socket: Sendable {
        let eventLoop: any EventLoop
        /// On the event loop: writes the texts as frames, in order, with one flush; `written`
        /// completes once the kernel has them all, or fails.
        let write: @Sendable (_ texts: [WireText], _ written: EventLoopPromise<Void>) -> Void
        /// On the event loop, after everything queued before it was written: the closing handshake.
        let close: @Sendable (_ why: SocketClose) -> Void
        /// Ends the socket at once (the connection was dropped).
        let end: @Sendable () -> Void
    }

    /// Messages a connection may have waiting before it counts as not reading.
    static let queueLimit = 512
    /// Bytes likewise. 512 snapshots of a 200-player session would be 16 MB, held for a phone
    /// that asks for snapshots (`RESUME_SESSION`) and never reads; a host without patches is sent
    /// about 5 MB while such a session's players join (201 snapshots, the last 32 KB), which a
    /// stalled Wi-Fi link may leave waiting.
    static let queueByteLimit = 8 << 20

    let id: String
    let participantId: ParticipantID
    let role: Role
    /// The client asked for STATE_PATCH instead of a STATE_SNAPSHOT after each change.
    let takesPatches: Bool
    private let socket: Socket

    private struct Queue {
        /// Waiting for the next trip to the event loop.
        var items: [Outgoing] = []
        /// A trip to the event loop is on its way and will take `items`.
        var tripPending = false
        /// Handed to the channel, not yet taken by the kernel.
        var unwritten = 0
        /// The bytes of the texts in `items`, and of those unwritten.
        var queuedBytes = 0
        var unwrittenBytes = 0
        /// A close is queued, or the connection was dropped: nothing more is taken.
        var closing = false
        /// Dropped: what is queued is thrown away.
        var gone = false
    }

    private let queue = Mutex(Queue())

    init(id: String, participantId: ParticipantID, role: Role, takesPatches: Bool, socket: Socket) {
        self.id = id
        self.participantId = participantId
        self.role = role
        self.takesPatches = takesPatches
        self.socket = socket
    }

    /// What became of messages handed to `deliver`.
    enum Delivery: Equatable {
        case queued
        /// Too many messages wait: the client stopped reading, and the connection is dropped now.
        case overflowed
        /// The connection is closing or gone.
        case closed
    }

    /// Queues a message, unless the connection is closing; a full queue drops the connection.
    @discardableResult
    func send(_ text: String) -> Delivery { deliver([.text(.whole(text))]) }

    /// Sends what is queued, then a close frame for `why`.
    func close(_ why: SocketClose) { deliver([.close(why)]) }

    /// Queues messages in order, all or none; they go out with one write. Nothing after a close is
    /// taken; too many waiting drops the connection.
    @discardableResult
    func deliver(_ items: [Outgoing]) -> Delivery {
        var items = items
        let close = items.firstIndex { if case .close = $0 { true } else { false } }
        if let close { items.removeSubrange((close + 1)...) }
        let bytes = Self.bytes(of: items)
        let (delivery, trip) = queue.withLock { queue -> (Delivery, Bool) in
            guard !queue.closing else { return (.closed, false) }
            guard queue.items.count + queue.unwritten + items.count <= Self.queueLimit,
                queue.queuedBytes + queue.unwrittenBytes + bytes <= Self.queueByteLimit
            else {
                return (.overflowed, false)
            }
            queue.queuedBytes += bytes
            queue.closing = close != nil
            queue.items += items
            defer { queue.tripPending = true }
            return (.queued, !queue.tripPending)
        }
        if delivery == .overflowed { drop() }
        if trip { socket.eventLoop.execute { self.writeQueued() } }
        return delivery
    }

    /// Gives up on the connection without waiting for its queue, and ends its socket.
    func drop() {
        if ended() { socket.end() }
    }

    /// The socket is gone (or going): what is queued is thrown away and nothing more is taken;
    /// true the first time.
    @discardableResult
    func ended() -> Bool {
        queue.withLock { queue in
            defer {
                queue.closing = true
                queue.gone = true
                queue.items = []
                queue.queuedBytes = 0
            }
            return !queue.gone
        }
    }

    /// On the event loop: writes what is queued, then starts the close if one was queued.
    private func writeQueued() {
        // Taken and counted as unwritten in one step, so the queue's bound never misses them.
        let (items, count, bytes) = queue.withLock { queue in
            defer {
                queue.items = []
                queue.queuedBytes = 0
            }
            queue.tripPending = false
            let count = queue.items.count { if case .text = $0 { true } else { false } }
            queue.unwritten += count
            queue.unwrittenBytes += queue.queuedBytes
            return (queue.items, count, queue.queuedBytes)
        }
        var texts: [WireText] = []
        var close: Outgoing?
        for item in items {
            if case .text(let text) = item { texts.append(text) } else { close = item }
        }
        if !texts.isEmpty {
            let written = socket.eventLoop.makePromise(of: Void.self)
            written.futureResult.whenComplete { _ in
                self.queue.withLock {
                    $0.unwritten -= count
                    $0.unwrittenBytes -= bytes
                }
            }
            socket.write(texts, written)
        }
        if case .close(let why)? = close { socket.close(why) }
    }

    private static func bytes(of items: [Outgoing]) -> Int {
        items.reduce(0) { sum, item in if case .text(let text) = item { sum + text.utf8Count } else { sum } }
    }
}
