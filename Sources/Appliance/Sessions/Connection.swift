import Core
import Synchronization

/// One WebSocket client of a session: who it is, and a bounded queue of messages waiting to be
/// written. A client that stops reading fills its queue and is dropped; it never slows the others.
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
    let outgoing: AsyncStream<Outgoing>
    /// Ends when the connection must go at once (its queue overflowed).
    let dropped: AsyncStream<Void>
    private let queue: AsyncStream<Outgoing>.Continuation
    private let dropSignal: AsyncStream<Void>.Continuation
    private let closing = Mutex(false)

    init(id: String, participantId: ParticipantID, role: Role) {
        self.id = id
        self.participantId = participantId
        self.role = role
        (outgoing, queue) = AsyncStream.makeStream(
            of: Outgoing.self, bufferingPolicy: .bufferingOldest(Self.queueLimit))
        (dropped, dropSignal) = AsyncStream.makeStream(of: Void.self)
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
    func send(_ text: String) -> Delivery {
        guard !closing.withLock({ $0 }) else { return .closed }
        switch queue.yield(.text(text)) {
        case .enqueued: return .queued
        case .dropped:
            drop()
            return .overflowed
        case .terminated: return .closed
        @unknown default: return .closed
        }
    }

    /// Sends what is queued, then a close frame with `code`.
    func close(code: UInt16, reason: String) {
        guard
            closing.withLock({
                let was = $0; $0 = true; return !was
            })
        else { return }
        if case .dropped = queue.yield(.close(code: code, reason: reason)) { drop() }
        queue.finish()
    }

    /// Gives up on the connection without waiting for its queue.
    func drop() {
        closing.withLock { $0 = true }
        queue.finish()
        dropSignal.finish()
    }
}
