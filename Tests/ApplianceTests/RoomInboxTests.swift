import Core
import Foundation
import Testing

/// A room runs on one of the box's event loops. A socket on that loop hands it each message as it
/// is read; a socket on another loop sends its messages over. Sockets are spread over the loops
/// in turn as they connect (one loop per core), so with up to six loops each test below has
/// sockets on the room's loop and on others.
@Suite("Messages on their way to the room", .serialized, .timeLimit(.minutes(5)))
struct RoomInboxTests {
    let box: BoxProcess

    init() async throws {
        box = try BoxProcess()
        try await box.start()
    }

    @Test("each socket's messages reach the room in the order they were sent, from either event loop")
    func order() async throws {
        let names = (1...5).map { "Player \($0)" }
        let table = try await LiveTable.open(box, players: names)
        // 30 each, within a client's burst of 40: the room answers every PING as it takes it.
        let count = 30
        for socket in table.everyone {
            for index in 0..<count { socket.send(.ping(.init(clientTimeMs: Int64(index)))) }
        }
        for socket in table.everyone {
            var heard: [Int] = []
            for _ in 0..<count {
                let pong = try await socket.expect("PONG")
                heard.append(try #require(pong.payloadObject["clientTimeMs"] as? Int))
            }
            #expect(heard == Array(0..<count))
        }
        table.closeAll()
    }

    /// A game at its first clue whose host's socket has closed, and its TV.
    private func gameWithoutItsHost() async throws -> (LiveTable, TestSocket) {
        let table = try await LiveTable.open(box, settings: ["introMs": 0], players: ["Anna"])
        table.host.send(.hostStartGame)
        try await table.allSee(.clueLevel, level: 10)
        table.host.close()
        _ = try await table.host.closeCode()
        return (table, try #require(table.tv))
    }

    @Test("a command sent just before the socket closes is run before the socket's leaving")
    func lastWord() async throws {
        let (table, tv) = try await gameWithoutItsHost()
        // Each time a new socket for the host, on the next loop.
        for round in 0..<6 {
            let paused = round % 2 == 0
            let host = TestSocket(url: box.webSocketURL, token: table.hostToken)
            try await host.expect("WELCOME")
            host.send(paused ? .hostPause : .hostResume)
            host.close()
            try await tv.expectSnapshot { $0.paused == paused }
            _ = try await host.closeCode()
        }
        table.closeAll()
    }

    @Test("commands pipelined behind the HELLO, with the close right after them, are run before the leaving")
    func lastWordBeforeAdmission() async throws {
        let (table, tv) = try await gameWithoutItsHost()
        let frames = [ClientMessage.hello(.init(role: .host, authToken: table.hostToken)), .hostPause]
            .flatMap { RawWebSocket.text(String(decoding: $0.encoded(), as: UTF8.self)) }
        let port = box.port
        // One write: the box reads the close while it is still admitting the socket.
        let closed = try await offTheTestThreads {
            let socket = try RawWebSocket.open(port: port)
            socket.write(frames + RawWebSocket.close(1000))
            return try socket.readClose()
        }
        #expect(closed.code == 1000)
        try await tv.expectSnapshot { $0.paused }
        table.closeAll()
    }
}
