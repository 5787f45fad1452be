import HTTPTypes
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1
import NIOWebSocket

/// Each accepted connection of the box's server: HTTP/1.1 for the pages and the REST routes, or,
/// for an upgrade to `GET /ws`, a WebSocket served by `SocketHandler` in the channel's pipeline.
///
/// It is built like Hummingbird's `HTTP1WebSocketUpgradeChannel`, with two differences. An
/// upgraded socket is left to its handlers: Hummingbird's runs a task for as long as each socket
/// is open, and the task's memory was most of what a socket cost (docs/performance.md, "Sockets
/// served by channel handlers"). And the read buffers are smaller: a NIO channel keeps its receive
/// buffer for reuse, 2 KB by default, while the box's clients send messages of a few hundred
/// bytes; the allocator still grows them, read by read, for a larger one.
struct BoxChannel: ServerChildChannel, HTTPChannelHandler {
    enum Upgrade: Sendable {
        /// A WebSocket, served by its handlers from now on.
        case webSocket
        case notUpgraded(NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>)
        /// An upgrade request the box does not take (another path, or not a GET).
        case refused(NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>)
    }

    struct Value: ServerChildChannelValue {
        let upgrade: EventLoopFuture<Upgrade>
        let channel: any Channel
    }

    /// A connection has this long to send its first request's head (a phone on the LAN takes
    /// milliseconds); one that sends nothing, or trickles a request, is closed. Without it each
    /// held an open file for as long as its client liked.
    static let firstRequestLimit: TimeAmount = .seconds(10)
    /// A kept-alive connection with no request for this long is closed.
    static let idleLimit: Duration = .seconds(75)
    /// A request has this long from its head to its end: a body sent a byte at a time would
    /// otherwise hold the connection, since each byte counts as activity.
    static let requestLimit: TimeAmount = .seconds(30)

    static var readBuffers: AdaptiveRecvByteBufferAllocator {
        AdaptiveRecvByteBufferAllocator(minimum: 64, initial: 512, maximum: 65_536)
    }

    let responder: HTTPChannelHandler.Responder
    let sockets: SocketController

    init(responder: @escaping HTTPChannelHandler.Responder, sockets: SocketController) {
        self.responder = Self.redirectingLateUpgrades(responder)
        self.sockets = sockets
    }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            try channel.syncOptions?.setOption(ChannelOptions.recvAllocator, value: Self.readBuffers)
            let attempted = NIOLoopBoundBox(false, eventLoop: channel.eventLoop)
            let sockets = self.sockets
            let upgrader = NIOTypedWebSocketServerUpgrader<Upgrade>(
                maxFrameSize: SocketController.maxMessageBytes,
                shouldUpgrade: { channel, head in
                    attempted.value = true
                    return channel.eventLoop.makeSucceededFuture(SocketController.accepts(head) ? [:] : nil)
                },
                upgradePipelineHandler: { channel, head in
                    channel.eventLoop.makeCompletedFuture {
                        try sockets.install(on: channel, head: head)
                        return .webSocket
                    }
                })
            let upgrades = NIOTypedHTTPServerUpgradeConfiguration(
                upgraders: [upgrader],
                notUpgradingCompletionHandler: { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let pipeline = channel.pipeline.syncOperations
                        try pipeline.addHandler(RequestDeadline())
                        try pipeline.addHandler(HTTP1ToHTTPServerCodec(secure: false))
                        try pipeline.addHandler(HTTPConnectionStateHandler(idleTimeout: Self.idleLimit, logger: logger))
                        let http = try NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>(
                            wrappingChannelSynchronously: channel,
                            configuration: .init(isOutboundHalfClosureEnabled: true))
                        return attempted.value ? .refused(http) : .notUpgraded(http)
                    }
                })
            var configuration = NIOUpgradableHTTPServerPipelineConfiguration<Upgrade>(upgradeConfiguration: upgrades)
            // As Hummingbird's own channels: the async channel orders requests, and Hummingbird
            // answers errors and checks response headers itself, once the first request has made
            // the channel an HTTP one (`FirstRequestErrors` answers before that).
            configuration.enablePipelining = false
            configuration.enableErrorHandling = false
            configuration.enableResponseHeaderValidation = false
            let pipeline = channel.pipeline.syncOperations
            let upgrade = try pipeline.configureUpgradableHTTPServerPipeline(configuration: configuration)
            let errors = FirstRequestErrors()
            try pipeline.addHandler(errors)
            let firstRequest = NIOLoopBound(
                (errors, channel.eventLoop.scheduleTask(in: Self.firstRequestLimit) { channel.close(promise: nil) }),
                eventLoop: channel.eventLoop)
            upgrade.whenComplete { _ in
                firstRequest.value.1.cancel()
                channel.pipeline.syncOperations.removeHandler(firstRequest.value.0, promise: nil)
            }
            return Value(upgrade: upgrade, channel: channel)
        }
    }

    func handle(value: Value, logger: Logger) async {
        do {
            switch try await value.upgrade.get() {
            case .webSocket:
                break
            case .notUpgraded(let http):
                await handleHTTP(asyncChannel: http, logger: logger)
            case .refused(let http):
                try await http.executeThenClose { _, outbound in
                    try await outbound.write(
                        contentsOf: [
                            .head(
                                HTTPResponse(
                                    status: .badRequest, headerFields: [.connection: "close", .contentLength: "0"])),
                            .end(nil),
                        ])
                }
            }
        } catch {
            logger.debug("connection ended before its first request was handled", metadata: ["error": "\(error)"])
        }
    }

    /// NIO only upgrades a connection's first request. A client that asks for the socket on a
    /// connection that has served a page is sent to the same address again, on a new connection
    /// (a 307, and this one closes).
    private static func redirectingLateUpgrades(
        _ responder: @escaping HTTPChannelHandler.Responder
    ) -> HTTPChannelHandler.Responder {
        struct Redirected: Error {}
        return { request, writer, channel in
            guard request.headers[.upgrade]?.lowercased() == "websocket" else {
                return try await responder(request, writer, channel)
            }
            let location = request.uri.query.map { "\(request.uri.path)?\($0)" } ?? request.uri.path
            try await writer.writeResponse(
                HTTPResponse(status: .temporaryRedirect, headerFields: [.connection: "close", .location: location]))
            throw Redirected()
        }
    }
}

/// Answers a first request that cannot be parsed (a garbled request line, a header over the
/// limit, a TLS hello) with 400 and closes the connection. Hummingbird answers such requests once
/// the first one has made the channel an HTTP one; before that nothing did, and the connection
/// stayed open, unanswered. Taken out once the first request is read.
private final class FirstRequestErrors: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny
    typealias OutboundOut = HTTPServerResponsePart

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard error is HTTPParserError else { return context.fireErrorCaught(error) }
        let head = HTTPResponseHead(
            version: .http1_1, status: .badRequest, headers: ["Connection": "close", "Content-Length": "0"])
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
    }
}

/// Closes a connection whose request's body has not all come within `BoxChannel.requestLimit` of
/// its head (bodies are at most 16 KiB).
private final class RequestDeadline: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart

    private var deadline: Scheduled<Void>?

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            deadline?.cancel()
            let channel = context.channel
            deadline = context.eventLoop.scheduleTask(in: BoxChannel.requestLimit) { channel.close(promise: nil) }
        case .end:
            deadline?.cancel()
            deadline = nil
        case .body:
            break
        }
        context.fireChannelRead(data)
    }

    func handlerRemoved(context: ChannelHandlerContext) { deadline?.cancel() }
}
