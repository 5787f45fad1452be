import NIOCore
import NIOEmbedded
import NIOWebSocket
import Testing

@testable import Appliance

/// The box frames the room's texts itself, all of one write in one buffer
/// (`SocketController.textFrames`); NIO's frame decoder, as a client's, must read them back as
/// the same text frames, whatever their length. (The frames on a real socket are checked by
/// `WireProtocolTests` and the browser tests.)
@Suite("Frame writing", .timeLimit(.minutes(5)))
struct FrameWritingTests {
    private func decoded(_ buffer: ByteBuffer) throws -> [WebSocketFrame] {
        let channel = EmbeddedChannel()
        defer { _ = try? channel.finish() }
        try channel.pipeline.syncOperations.addHandler(
            ByteToMessageHandler(WebSocketFrameDecoder(maxFrameSize: 1 << 20)))
        try channel.writeInbound(buffer)
        var frames: [WebSocketFrame] = []
        while let frame = try channel.readInbound(as: WebSocketFrame.self) { frames.append(frame) }
        return frames
    }

    @Test(
        "texts of every header size (7-, 16- and 64-bit lengths) come back as whole, unmasked text frames",
        arguments: [0, 1, 125, 126, 127, 65_535, 65_536, 100_000])
    func lengths(_ length: Int) throws {
        let text = String(repeating: "x", count: length)
        let frames = try decoded(SocketController.textFrames([.whole(text)], allocator: ByteBufferAllocator()))
        #expect(frames.count == 1)
        let frame = try #require(frames.first)
        #expect(frame.fin && frame.opcode == .text && frame.maskKey == nil && frame.reservedBits.isEmpty)
        #expect(String(buffer: frame.data) == text)
    }

    @Test("several texts, spliced ones and ones whose characters take several bytes, in order")
    func several() throws {
        let texts: [WireText] = [
            .whole(#"{"type":"CLUE_PRESENT","text":"Här bor 1,3 miljoner människor 🚂"}"#),
            .spliced(head: #"{"you":"#, own: String(repeating: "å", count: 200), tail: "}"),
            .whole(""),
            .spliced(head: String(repeating: "é", count: 40_000), own: "", tail: "!"),
        ]
        let buffer = SocketController.textFrames(texts, allocator: ByteBufferAllocator())
        let sizes = texts.map(\.utf8Count)
        #expect(buffer.readableBytes == sizes.map { $0 + 2 + ($0 < 126 ? 0 : $0 < 65_536 ? 2 : 8) }.reduce(0, +))
        let frames = try decoded(buffer)
        #expect(frames.map { String(buffer: $0.data) } == texts.map(\.string))
        #expect(frames.allSatisfy { $0.fin && $0.opcode == .text && $0.maskKey == nil })
    }
}
