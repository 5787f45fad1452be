import Core
import Foundation
import Logging
import NIOCore
import Synchronization

@testable import Appliance

/// A session room of its own, in memory (no box process), with sockets that keep what they are
/// sent: for what a room does with its connections, seen from inside.
struct TestRoom {
    let room: SessionRoom
    /// The host's seat.
    let seat: SessionRoom.Seat
    let start: Int64

    static func open() async throws -> TestRoom {
        let logger = Logger(label: "TestRoom")
        let environment = RoomEnvironment(
            database: try .inMemory(),
            packs: PackLibrary(
                directory: BoxProcess.repositoryRoot.appendingPathComponent("packs").path, preferredDefault: nil,
                logger: logger),
            address: PublicAddress(configured: "http://box.test", port: 8080), limits: Limits(), logger: logger)
        let start = ServerClock.now()
        let record = SessionRecord(
            id: Secrets.sessionId(), joinCode: "ABCDEF", joinToken: Secrets.token(),
            tvJoinTokenHash: Secrets.hash("tv"),
            settings: try environment.settings(from: nil), maxPlayers: 50, createdAt: start)
        let (room, seat) = try await SessionRoom.create(
            record: record, creator: .host, environment: environment, now: start)
        return TestRoom(room: room, seat: seat, start: start)
    }

    /// What a socket was sent, and how it was closed.
    final class Written: Sendable {
        let texts = Mutex<[String]>([])
        let closes = Mutex<[(code: UInt16, reason: String)]>([])
    }

    /// A connection of the host's, on the room's loop, writing into `written`.
    func hostConnection(_ id: String, into written: Written) -> Connection {
        let socket = Connection.Socket(
            eventLoop: room.loop,
            write: { texts, done in
                written.texts.withLock { $0 += texts.map(\.string) }
                done.succeed()
            },
            close: { why in written.closes.withLock { $0.append((why.code, why.reason)) } }, end: {})
        return Connection(id: id, participantId: seat.participantId, role: .host, takesPatches: false, socket: socket)
    }
}
