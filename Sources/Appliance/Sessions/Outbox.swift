import Core
import Logging
import Synchronization

/// A room's messages on their way to its connections. A room applies each command at once and
/// hands its save to the journal (`Journal`) without waiting; the command's messages wait here
/// until that save and every earlier one of the room are on disk, and then go out in the order
/// they were posted. So a room never stops to wait for the disk, and still nothing is sent that is
/// not saved: a box killed at any moment comes back in a state every client has already seen.
///
/// Saves are numbered per room (tickets); the journal reports them in that order, from its own
/// thread, and the messages they free are queued on their connections right there.
final class Outbox: Sendable {
    enum Item: Sendable {
        case text(Connection, WireText)
        case close(Connection, SocketClose)
    }

    private struct Held {
        /// The save that must be on disk before these go out.
        var after: Int
        var items: [Item]
        /// The connection whose command this is, told if it is lost.
        var origin: Connection?
    }

    private struct State {
        /// Every ticket up to this one is on disk.
        var saved = 0
        /// Waiting for their saves, in order (`after` never decreases).
        var held: [Held] = []
        var heldStart = 0
        /// Why a save failed: nothing goes out until the room has gone back to what is on disk.
        var failure: String?
        /// Tickets up to this one belong to before the last failure; what becomes of them no longer matters.
        var staleThrough = 0
    }

    private let state = Mutex(State())
    private let logger: Logger

    init(logger: Logger) { self.logger = logger }

    /// Sends `items` once ticket `after` is saved (at once if it is and nothing waits before them).
    func post(_ items: [Item], after ticket: Int, origin: Connection? = nil) {
        guard !items.isEmpty || origin != nil else { return }
        state.withLock { state in
            if state.failure == nil, state.heldStart == state.held.count, ticket <= state.saved {
                send(items)
            } else {
                state.held.append(Held(after: ticket, items: items, origin: origin))
            }
        }
    }

    /// The journal saved `ticket` (and, before it, every earlier one).
    func saved(_ ticket: Int) {
        state.withLock { state in
            guard ticket > state.staleThrough else { return }
            state.saved = ticket
            guard state.failure == nil else { return }
            var due: [Item] = []
            while state.heldStart < state.held.count, state.held[state.heldStart].after <= ticket {
                due += state.held[state.heldStart].items
                state.heldStart += 1
            }
            if state.heldStart == state.held.count {
                state.held.removeAll(keepingCapacity: true)
                state.heldStart = 0
            }
            send(due)
        }
    }

    /// The journal could not save `ticket`: hold everything until the room has gone back (`reset`).
    func failed(_ ticket: Int, reason: String) {
        state.withLock { state in
            guard ticket > state.staleThrough, state.failure == nil else { return }
            state.failure = reason
        }
    }

    /// Why the first save since the room last went back failed, until it goes back (`reset`).
    var failure: String? { state.withLock { $0.failure } }

    /// What was dropped by `reset`: the connections whose commands were lost, and those that
    /// were to be closed (kicked, or their session ended) by them.
    struct Dropped {
        var origins: [Connection] = []
        var closing: [Connection] = []
    }

    /// The room went back to what is on disk, having handed out tickets up to `lastTicket`:
    /// everything that waited is dropped.
    func reset(lastTicket: Int) -> Dropped {
        state.withLock { state in
            var dropped = Dropped()
            for held in state.held[state.heldStart...] {
                if let origin = held.origin { dropped.origins.append(origin) }
                for case .close(let connection, _) in held.items { dropped.closing.append(connection) }
            }
            state = State(saved: lastTicket, staleThrough: lastTicket)
            return dropped
        }
    }

    /// Queues each connection's messages in one go, so a connection writes once for
    /// everything a save freed (events and snapshot leave in one write).
    private func send(_ items: [Item]) {
        var connections: [ObjectIdentifier: (connection: Connection, items: [Connection.Outgoing])] = [:]
        var order: [ObjectIdentifier] = []
        for item in items {
            let (connection, outgoing): (Connection, Connection.Outgoing) =
                switch item {
                case .text(let connection, let text): (connection, .text(text))
                case .close(let connection, let why): (connection, .close(why))
                }
            let key = ObjectIdentifier(connection)
            if connections[key] == nil {
                order.append(key)
                connections[key] = (connection, [])
            }
            connections[key]!.items.append(outgoing)
        }
        for key in order {
            let (connection, items) = connections[key]!
            if connection.deliver(items) == .overflowed {
                logger.warning(
                    "connection dropped: not reading",
                    metadata: [
                        "connection.id": "\(connection.id)", "participant.id": "\(connection.participantId)",
                    ])
            }
        }
    }
}
