import Core
import Synchronization

/// One WebSocket client of a session: who it is, and a bounded queue of messages waiting to be
/// written. A client that stops reading fills its queue and is dropped; it never slows the others.
/// The socket's writer takes everything queued at once (`next`), so a burst of messages costs one
/// write to the socket rather than one each.
final class Connection: Sendable {
    enum Outgoing: Sendable {
        case text(String)
        case close(code: UInt16, reason: String)
    }

    /// Messages a connection may have waiting before it counts as not reading.
    static let queueLimit = 512

    let id: String
    let participantId: ParticipantID
    let role: Role
    /// Ends the socket at once, whatever its writer is waiting for (the connection was dropped).
    private let endSocket: @Sendable () -> Void

    private struct Queue {
        var items: [Outgoing] = []
        /// The writer, waiting for the next message.
        var writer: CheckedContinuation<[Outgoing], Never>?
        /// A close is queued, or the connection was dropped: nothing more is taken.
        var closing = false
        /// Dropped: what is queued is thrown away, and the writer stops.
        var gone = false
    }

    private let queue = Mutex(Queue())

    init(id: String, participantId: ParticipantID, role: Role, endSocket: @escaping @Sendable () -> Void = {}) {
        self.id = id
        self.participantId = participantId
        self.role = role
        self.endSocket = endSocket
    }

    /// What became of a message handed to `send`.
    enum Delivery: Equatable {
        case queued
        /// The queue was full: the client stopped reading, and the connection is dropped now.
        case overflowed
        /// The connection is closing or gone.
        case closed
    }

    /// Queues a message, unless the connection is closing; a full queue drops the connection.
    @discardableResult
    func send(_ text: String) -> Delivery { deliver([.text(text)]) }

    /// Sends what is queued, then a close frame with `code`.
    func close(code: UInt16, reason: String) { deliver([.close(code: code, reason: reason)]) }

    /// Queues messages in order, all or none, and wakes the writer once for all of them (so they go
    /// out in one write). Nothing after a close is taken; a full queue drops the connection.
    @discardableResult
    func deliver(_ items: [Outgoing]) -> Delivery {
        let delivery = enqueue(items)
        if delivery == .overflowed { drop() }
        return delivery
    }

    /// Gives up on the connection without waiting for its queue, and ends its socket.
    func drop() {
        if stopWriter() { endSocket() }
    }

    /// Throws away what is queued and wakes the writer with nothing; true the first time.
    @discardableResult
    private func stopWriter() -> Bool {
        let (writer, first) = queue.withLock { queue in
            defer {
                queue.closing = true
                queue.gone = true
                queue.items = []
                queue.writer = nil
            }
            return (queue.writer, !queue.gone)
        }
        writer?.resume(returning: [])
        return first
    }

    /// Everything queued since the last call, waiting for at least one message; empty once the
    /// connection is dropped, after its close has been taken, or when the waiting task is cancelled
    /// (the socket is going).
    func next() async -> [Outgoing] {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (writer: CheckedContinuation<[Outgoing], Never>) in
                let ready = queue.withLock { queue -> [Outgoing]? in
                    if !queue.items.isEmpty || queue.gone || queue.closing {
                        defer { queue.items = [] }
                        return queue.items
                    }
                    queue.writer = writer
                    return nil
                }
                if let ready { writer.resume(returning: ready) }
            }
        } onCancel: {
            stopWriter()
        }
    }

    private func enqueue(_ items: [Outgoing]) -> Delivery {
        var items = items
        let close = items.firstIndex { if case .close = $0 { true } else { false } }
        if let close { items.removeSubrange((close + 1)...) }
        let (delivery, writer, taken) = queue.withLock {
            queue -> (Delivery, CheckedContinuation<[Outgoing], Never>?, [Outgoing]) in
            guard !queue.closing else { return (.closed, nil, []) }
            guard queue.items.count + items.count <= Self.queueLimit else { return (.overflowed, nil, []) }
            queue.closing = close != nil
            queue.items += items
            guard let writer = queue.writer else { return (.queued, nil, []) }
            queue.writer = nil
            defer { queue.items = [] }
            return (.queued, writer, queue.items)
        }
        writer?.resume(returning: taken)
        return delivery
    }
}
