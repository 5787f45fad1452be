import Core
import Foundation
import NIOCore
import Synchronization
import Testing

@testable import Appliance

/// What one phone can hold of the box: a few sockets, each with a bounded backlog.
@Suite("Seat limits", .timeLimit(.minutes(5)))
struct SeatLimitsTests {
    @Test("a fifth socket of one seat takes the place of the oldest, which is closed with 1008")
    func socketsPerSeat() async throws {
        let test = try await TestRoom.open()
        let written = (0..<5).map { _ in TestRoom.Written() }
        let sockets = written.enumerated().map { test.hostConnection("socket-\($0.offset)", into: $0.element) }
        for (index, socket) in sockets.enumerated() {
            #expect(await test.room.attach(socket, now: test.start + Int64(index)))
        }
        let deadline = ContinuousClock.now + .seconds(5)
        while written[0].closes.withLock({ $0.isEmpty }), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(written[0].closes.withLock { $0.map(\.code) } == [1008])
        #expect(written[0].closes.withLock { $0.map(\.reason) } == ["TOO_MANY_CONNECTIONS"])
        #expect(written[1...].allSatisfy { $0.closes.withLock { $0.isEmpty } })
        #expect(
            await test.room.connectionsSnapshot.map(\.id).sorted() == ["socket-1", "socket-2", "socket-3", "socket-4"])
        await test.room.closeAll(.boxShuttingDown)
    }

    @Test("a client that stops reading is dropped once 8 MB wait for it, before 512 messages do")
    func backlogInBytes() throws {
        let ended = Mutex(false)
        // The kernel never takes anything: every write stays unwritten (its promise is kept, and
        // failed at the end, as a socket's would be when it closes).
        let unwritten = Mutex<[EventLoopPromise<Void>]>([])
        let socket = Connection.Socket(
            eventLoop: NIOSingletons.posixEventLoopGroup.next(),
            write: { _, written in unwritten.withLock { $0.append(written) } }, close: { _ in },
            end: { ended.withLock { $0 = true } })
        defer { unwritten.withLock { $0.forEach { $0.fail(ChannelError.ioOnClosedChannel) } } }
        let connection = Connection(
            id: "sloth", participantId: "p1", role: .player, takesPatches: false, socket: socket)
        let snapshot = String(repeating: "x", count: 100_000)
        var queued = 0
        while connection.send(snapshot) == .queued { queued += 1 }
        #expect(queued == Connection.queueByteLimit / 100_000)
        #expect(ended.withLock { $0 })
        #expect(connection.send("after") == .closed)
    }
}
