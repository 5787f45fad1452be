import NIOCore
import NIOWebSocket

/// Pings a WebSocket client every `period`, and closes its socket when nothing at all was heard
/// from it between two pings: a client that vanished (a phone that left the network without a
/// FIN) is shown as not connected within about two periods. The socket is closed without a close
/// frame, which such a client would not read.
///
/// It is a handler in the socket's pipeline with a timer on the socket's event loop. The WebSocket
/// library can ping too, but it runs a task per socket for it, which cost about 3 KB of every
/// socket's memory (docs/performance.md, "Sockets served by channel handlers"). The answers to its
/// pings end here (the frame decoder before it has checked them); every other frame goes on to the
/// WebSocket handler, once it is seen to be masked. Once the box's close frame has gone by on its
/// way out, it pings no more: nothing follows a close.
final class Keepalive: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias InboundOut = WebSocketFrame
    typealias OutboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    static let period = TimeAmount.seconds(6)

    private let period: TimeAmount
    private var heard = true
    private var refused = false
    private var pings: UInt64 = 0
    private var timer: RepeatedTask?

    init(period: TimeAmount = Keepalive.period) { self.period = period }

    func handlerAdded(context: ChannelHandlerContext) {
        let bound = NIOLoopBound((handler: self, context: context), eventLoop: context.eventLoop)
        timer = context.eventLoop.scheduleRepeatedTask(initialDelay: period, delay: period) { _ in
            bound.value.handler.tick(bound.value.context)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) { stop() }

    func channelInactive(context: ChannelHandlerContext) {
        stop()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !refused else { return }
        let frame = unwrapInboundIn(data)
        // RFC 6455, 5.1: a client masks every frame, and a server closes the connection on one that
        // is not. Checked here, first, since the aggregator after it drops the masks of fragments.
        guard frame.maskKey != nil else { return refuseUnmasked(context) }
        heard = true
        guard frame.opcode != .pong else { return }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if unwrapOutboundIn(data).opcode == .connectionClose { stop() }
        context.write(data, promise: promise)
    }

    private func tick(_ context: ChannelHandlerContext) {
        guard heard else {
            stop()
            context.close(promise: nil)
            return
        }
        heard = false
        pings &+= 1
        var data = context.channel.allocator.buffer(capacity: 8)
        data.writeInteger(pings)
        context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .ping, data: data)), promise: nil)
    }

    /// Closes with 1002 (protocol error) at once: the client does not speak WebSocket, so no
    /// closing handshake is waited for.
    private func refuseUnmasked(_ context: ChannelHandlerContext) {
        refused = true
        stop()
        var code = context.channel.allocator.buffer(capacity: 2)
        code.write(webSocketErrorCode: .protocolError)
        let close = WebSocketFrame(fin: true, opcode: .connectionClose, data: code)
        let bound = context.loopBound
        context.writeAndFlush(wrapOutboundOut(close)).whenComplete { _ in bound.value.close(promise: nil) }
    }

    /// Whether its timer runs (for the tests).
    var isTicking: Bool { timer != nil }

    private func stop() {
        timer?.cancel()
        timer = nil
    }
}
