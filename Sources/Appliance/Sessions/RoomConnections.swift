import Core

/// A room's connections by id, and by participant for the messages that have one recipient.
///
/// A BRAKE_REJECTED or an ERROR goes to one phone. Found by asking every connection of the room
/// whether it was the one, that question took about a quarter of the room's time for each pull of
/// a 200-player table's brake rush, and the room answers the pulls one after the other
/// (docs/performance.md, "Recipients found by participant").
struct RoomConnections {
    private var byId: [String: Connection] = [:]
    private var byParticipant: [ParticipantID: [Connection]] = [:]

    var isEmpty: Bool { byId.isEmpty }

    var all: Dictionary<String, Connection>.Values { byId.values }

    subscript(id: String) -> Connection? { byId[id] }

    /// The participant's connections (a phone that reconnected may briefly have two).
    func of(_ participant: ParticipantID) -> [Connection] { byParticipant[participant] ?? [] }

    /// The connections an event for `audience` goes to.
    func recipients(of audience: Audience) -> [Connection] {
        if case .participant(let participant) = audience { return of(participant) }
        return byId.values.filter { audience.includes(role: $0.role, participant: $0.participantId) }
    }

    mutating func insert(_ connection: Connection) {
        remove(connection.id)
        byId[connection.id] = connection
        byParticipant[connection.participantId, default: []].append(connection)
    }

    /// Adds a connection to a seat that holds at most `limit` at once; returns those it pushed
    /// out, oldest first. A phone that reconnected may briefly have two, a second tab another: one
    /// more takes the place of the oldest, most likely a dead one. Without a bound one token could
    /// open hundreds, each with its own backlog and budget.
    mutating func insert(_ connection: Connection, seatHoldsAtMost limit: Int) -> [Connection] {
        insert(connection)
        let held = of(connection.participantId)
        let pushedOut = held.prefix(max(0, held.count - limit))
        for oldest in pushedOut { remove(oldest.id) }
        return Array(pushedOut)
    }

    /// The closes that a command's effects bring, each connection once: a revoked participant's
    /// connections, and every connection of an ended session.
    func closes(for effects: [Effect]) -> [(connection: Connection, why: SocketClose)] {
        var closes: [(connection: Connection, why: SocketClose)] = []
        var closed = Set<String>()
        func close(_ connection: Connection, _ why: SocketClose) {
            if closed.insert(connection.id).inserted { closes.append((connection, why)) }
        }
        for effect in effects {
            switch effect {
            case .revoke(let participant): for connection in of(participant) { close(connection, .revoked) }
            case .ended: for connection in all { close(connection, .sessionEnded) }
            case .send: break
            }
        }
        return closes
    }

    @discardableResult
    mutating func remove(_ id: String) -> Connection? {
        guard let connection = byId.removeValue(forKey: id) else { return nil }
        let participant = connection.participantId
        byParticipant[participant]?.removeAll { $0 === connection }
        if byParticipant[participant]?.isEmpty == true { byParticipant[participant] = nil }
        return connection
    }
}
