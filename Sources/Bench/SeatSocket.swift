import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket

/// A seat's WebSocket, as a handler on one of the generator's event loops. A message is stamped the
/// moment its last frame comes out of the frame decoder, then read and reacted to right there: no
/// hop to a task per seat. (With 202 seats sharing two threads, those hops queued behind each other,
/// and the time a message waited for its seat's task counted as the server's.)
enum SeatSocket {
    /// The largest message a seat takes (a 200-player snapshot is about 30 KB).
    static let maxMessageBytes = 1 << 22
    /// How long a seat waits for its upgrade and its WELCOME before it hangs up.
    static let welcomeTimeout = TimeAmount.seconds(10)

    /// Connects `seat` to `ws://127.0.0.1:<port>/ws?token=…` (and `&patches=1`); true once the
    /// upgrade went through.
    static func connect(_ seat: Seat, port: Int, token: String, patches: Bool) async throws -> Bool {
        let upgraded = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .connect(host: "127.0.0.1", port: port) { channel in
                seat.awaitWelcome(
                    channel.eventLoop.scheduleTask(in: welcomeTimeout) {
                        if !seat.isWelcomed { channel.close(promise: nil) }
                    })
                return channel.eventLoop.makeCompletedFuture {
                    let upgrader = NIOTypedWebSocketClientUpgrader<Bool>(
                        maxFrameSize: maxMessageBytes,
                        upgradePipelineHandler: { channel, _ in
                            channel.eventLoop.makeCompletedFuture {
                                // Neither server splits a message into fragments; a split one is
                                // joined here, as the box joins its clients' (`SocketController`).
                                try channel.pipeline.syncOperations.addHandler(
                                    NIOWebSocketFrameAggregator(
                                        minNonFinalFragmentSize: 0, maxAccumulatedFrameCount: 64,
                                        maxAccumulatedFrameSize: maxMessageBytes))
                                try channel.pipeline.syncOperations.addHandler(Reader(seat: seat))
                                seat.attach(channel)
                                return true
                            }
                        })
                    var headers = HTTPHeaders()
                    headers.add(name: "Host", value: "127.0.0.1:\(port)")
                    let head = HTTPRequestHead(
                        version: .http1_1, method: .GET, uri: "/ws?token=" + token + (patches ? "&patches=1" : ""),
                        headers: headers)
                    var configuration = NIOUpgradableHTTPClientPipelineConfiguration(
                        upgradeConfiguration: .init(
                            upgradeRequestHead: head, upgraders: [upgrader],
                            notUpgradingCompletionHandler: { channel in
                                channel.close(promise: nil)
                                return channel.eventLoop.makeSucceededFuture(false)
                            }))
                    // The server's first message can come in the same read as its 101.
                    configuration.leftOverBytesStrategy = .forwardBytes
                    return try channel.pipeline.syncOperations.configureUpgradableHTTPClientPipeline(
                        configuration: configuration)
                }
            }
        return try await upgraded.get()
    }

    /// A client's frame: masked, as RFC 6455 requires of every frame a client sends.
    static func frame(_ opcode: WebSocketOpcode, _ data: ByteBuffer) -> WebSocketFrame {
        WebSocketFrame(fin: true, opcode: opcode, maskKey: .random(), data: data)
    }

    /// Hands the seat every text message, whole; answers pings; answers the server's close.
    final class Reader: ChannelInboundHandler {
        typealias InboundIn = WebSocketFrame
        typealias OutboundOut = WebSocketFrame

        private let seat: Seat

        init(seat: Seat) { self.seat = seat }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let at = WallClock.nowMs()
            let frame = unwrapInboundIn(data)
            switch frame.opcode {
            case .text:
                frame.data.withUnsafeReadableBytes { seat.hear($0, at: at) }
            case .ping:
                context.writeAndFlush(wrapOutboundOut(SeatSocket.frame(.pong, frame.data)), promise: nil)
            case .connectionClose:
                // Our own close answered, or the server closing: answer it, then hang up.
                if seat.startClosing() {
                    let channel = context.channel
                    context.writeAndFlush(wrapOutboundOut(SeatSocket.frame(.connectionClose, frame.data)))
                        .whenComplete { _ in channel.close(promise: nil) }
                } else {
                    context.close(promise: nil)
                }
            default: break
            }
        }

        func channelInactive(context: ChannelHandlerContext) {
            seat.disconnected()
            context.fireChannelInactive()
        }

        func errorCaught(context: ChannelHandlerContext, error: Error) {
            context.close(promise: nil)
        }
    }
}
