import NIOCore
import NIOEmbedded
import NIOWebSocket
import Testing

@testable import Appliance

/// The box's own WebSocket pings, on a channel whose clock the test moves. (The process-level
/// check with a real half-open socket is `HousekeepingTests.deadPeer`.)
@Suite("Keepalive", .timeLimit(.minutes(5)))
struct KeepaliveTests {
    /// A connected channel with a keepalive, as the box installs it after the frame decoder.
    private func channel() throws -> (EmbeddedChannel, EmbeddedEventLoop) {
        let loop = EmbeddedEventLoop()
        let channel = EmbeddedChannel(loop: loop)
        try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(WebSocketFrameDecoder()))
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 9)).wait()
        try channel.pipeline.syncOperations.addHandler(Keepalive(period: .seconds(6)))
        loop.run()
        return (channel, loop)
    }

    /// A client's frame as bytes on the wire (under 126 bytes), masked as a client must unless told.
    private func wire(_ opcode: WebSocketOpcode, _ payload: ByteBuffer, masked: Bool = true) -> ByteBuffer {
        let mask: [UInt8] = [0x5A, 0x01, 0xC3, 0x7E]
        let plain = Array(payload.readableBytesView)
        var bytes = ByteBuffer(bytes: [
            0x80 | UInt8(webSocketOpcode: opcode), (masked ? 0x80 : 0) | UInt8(plain.count),
        ])
        if masked {
            bytes.writeBytes(mask)
            bytes.writeBytes(plain.enumerated().map { $0.element ^ mask[$0.offset % 4] })
        } else {
            bytes.writeBytes(plain)
        }
        return bytes
    }

    @Test("it pings once a period; the client's pongs, decoded, reach it and end there")
    func pingsEachPeriod() throws {
        let (channel, loop) = try channel()
        defer { _ = try? channel.finish() }
        loop.advanceTime(by: .seconds(5))
        #expect(try channel.readOutbound(as: WebSocketFrame.self) == nil)
        for round in 1...3 {
            loop.advanceTime(by: .seconds(round == 1 ? 1 : 6))
            let ping = try #require(try channel.readOutbound(as: WebSocketFrame.self))
            #expect(ping.opcode == .ping && ping.fin)
            #expect(try channel.readOutbound(as: WebSocketFrame.self) == nil)
            try channel.writeInbound(wire(.pong, ping.data))
            #expect(try channel.readInbound(as: WebSocketFrame.self) == nil)
            #expect(channel.isActive)
        }
    }

    @Test("after the box's close frame it pings no more")
    func nothingAfterClose() throws {
        let (channel, loop) = try channel()
        defer { _ = try? channel.finish() }
        var code = channel.allocator.buffer(capacity: 2)
        code.write(webSocketErrorCode: .init(codeNumber: 4001))
        try channel.writeOutbound(WebSocketFrame(fin: true, opcode: .connectionClose, data: code))
        #expect(try channel.readOutbound(as: WebSocketFrame.self)?.opcode == .connectionClose)
        loop.advanceTime(by: .seconds(13))
        #expect(try channel.readOutbound(as: WebSocketFrame.self) == nil)
    }

    @Test("a client silent between two pings is closed; one that only sends messages stays")
    func silentClientIsClosed() throws {
        let (channel, loop) = try channel()
        defer { _ = try? channel.finish() }
        // Messages count as being heard from, and reach the handlers after the keepalive unchanged.
        for _ in 0..<3 {
            try channel.writeInbound(wire(.text, ByteBuffer(string: #"{"type":"PING"}"#)))
            let passed = try #require(try channel.readInbound(as: WebSocketFrame.self))
            #expect(passed.opcode == .text && String(buffer: passed.unmaskedData) == #"{"type":"PING"}"#)
            loop.advanceTime(by: .seconds(6))
            #expect(channel.isActive)
        }
        // Nothing heard since the last ping: the next tick closes the socket.
        loop.advanceTime(by: .seconds(6))
        #expect(!channel.isActive)
    }

    @Test("an unmasked frame closes the socket with 1002 and goes no further (RFC 6455, 5.1)")
    func unmaskedFrameIsRefused() throws {
        let (channel, loop) = try channel()
        defer { _ = try? channel.finish() }
        try channel.writeInbound(wire(.text, ByteBuffer(string: #"{"type":"PING"}"#), masked: false))
        loop.run()
        #expect(try channel.readInbound(as: WebSocketFrame.self) == nil)
        let close = try #require(try channel.readOutbound(as: WebSocketFrame.self))
        var code = close.data
        #expect(close.opcode == .connectionClose && code.readWebSocketErrorCode() == .protocolError)
        #expect(!channel.isActive)
        loop.advanceTime(by: .seconds(13))
        #expect(try channel.readOutbound(as: WebSocketFrame.self) == nil)
    }

    @Test("its timer stops when it is taken out of the pipeline, and when the socket closes")
    func stopsWithTheChannel() throws {
        let (channel, loop) = try channel()
        let keepalive = try channel.pipeline.syncOperations.handler(type: Keepalive.self)
        #expect(keepalive.isTicking)
        try channel.pipeline.syncOperations.removeHandler(keepalive).wait()
        #expect(!keepalive.isTicking)
        loop.advanceTime(by: .seconds(30))
        #expect(try channel.readOutbound(as: WebSocketFrame.self) == nil)
        #expect(channel.isActive)
        _ = try channel.finish()

        let (other, _) = try self.channel()
        let second = try other.pipeline.syncOperations.handler(type: Keepalive.self)
        #expect(second.isTicking)
        _ = try other.finish()
        #expect(!second.isTicking)
    }
}
