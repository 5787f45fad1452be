import Core
import NIOEmbedded
import Testing

@testable import Appliance

@Suite("Room connections", .timeLimit(.minutes(5)))
struct RoomConnectionsTests {
    private static let loop = EmbeddedEventLoop()

    private static func connection(_ id: String, _ participant: ParticipantID, _ role: Role) -> Connection {
        Connection(
            id: id, participantId: participant, role: role, takesPatches: true,
            socket: .init(
                eventLoop: loop, write: { _, written in written.succeed() }, close: { _ in }, end: {}))
    }

    private static let audiences: [Audience] = [
        .everyone, .host, .tvAndPlayers, .room, .participant("p_1"), .participant("p_2"), .participant("p_9"),
        .participant("h"),
    ]

    /// What every audience reaches, found by asking each connection (as the room did before).
    private static func scan(_ table: RoomConnections) -> [[String]] {
        audiences.map { audience in
            table.all.filter { audience.includes(role: $0.role, participant: $0.participantId) }.map(\.id).sorted()
        }
    }

    private static func found(_ table: RoomConnections) -> [[String]] {
        audiences.map { table.recipients(of: $0).map(\.id).sorted() }
    }

    @Test("each audience reaches the connections that a look at every one of them finds, as they come and go")
    func recipientsFollowTheTable() {
        var table = RoomConnections()
        #expect(table.isEmpty)
        table.insert(Self.connection("c_h", "h", .host))
        table.insert(Self.connection("c_tv", "tv", .tv))
        for n in 1...4 { table.insert(Self.connection("c_\(n)", "p_\(n)", .player)) }
        // A phone that reconnected before its old socket was gone: two connections, one player.
        table.insert(Self.connection("c_1b", "p_1", .player))
        #expect(Self.found(table) == Self.scan(table))
        #expect(table.recipients(of: .participant("p_1")).map(\.id).sorted() == ["c_1", "c_1b"])
        #expect(table.recipients(of: .room).map(\.id) == ["c_tv"])

        #expect(table.remove("c_1")?.participantId == "p_1")
        #expect(table.remove("c_1") == nil)
        #expect(table.of("p_1").map(\.id) == ["c_1b"])
        table.remove("c_1b")
        #expect(table.of("p_1").isEmpty)
        // The same connection taken twice is there once.
        table.insert(Self.connection("c_2", "p_2", .player))
        #expect(table.of("p_2").count == 1)
        #expect(Self.found(table) == Self.scan(table))
        #expect(table["c_2"]?.participantId == "p_2")
        #expect(table["c_1"] == nil)

        for id in ["c_h", "c_tv", "c_2", "c_3", "c_4"] { table.remove(id) }
        #expect(table.isEmpty)
        #expect(Self.found(table).allSatisfy { $0.isEmpty })
    }
}
