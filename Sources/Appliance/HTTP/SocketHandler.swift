import Core
import Foundation
import NIOCore
import NIOWebSocket

/// One client's WebSocket, as the last handler of its channel's pipeline, on its event loop.
///
/// It authenticates the client (a HELLO first when the upgrade carried no token), attaches it to its
/// room, and then hands each message it reads to the room, in order. It answers pings and takes part
/// in the closing handshake, whichever side starts it. No task waits while the socket is open (a
/// task per socket was most of what a socket cost: docs/performance.md, "Sockets served by channel
/// handlers"): the room's messages are written from `Connection`, and the client's reach the room through `RoomInbox`.
final class SocketHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    /// A refusal waits this long after the upgrade. A frame sent in the same instant as the 101
    /// response reaches the client in the same read, and some client libraries (NIO's client
    /// upgrader among them) drop such frames and fail the connection; the client would not see why
    /// it was refused.
    static let settle = TimeAmount.milliseconds(300)
    /// Messages kept while the client is being admitted.
    static let waitingLimit = 40

    private enum Stage {
        /// The upgrade carried no token: the first message must be a HELLO with one.
        case awaitingHello
        /// Being authenticated and attached; what arrives meanwhile waits in `waiting`.
        case admitting
        case open(MessageReader, RoomInbox)
        /// Refused, or closing: messages are not read any more.
        case done
    }

    private let controller: SocketController
    private let token: String?
    private let takesPatches: Bool
    private var stage: Stage = .awaitingHello
    /// The messages read while the client is being admitted (nil for a binary one). The room takes
    /// them once it has attached the client, even if the socket has closed meanwhile: a client may
    /// send its last commands and its close right behind the HELLO.
    private var waiting: [String?] = []
    private var context: ChannelHandlerContext?
    /// NIO's frame encoder's context: the room's messages, framed already, are written from there.
    private var frames: ChannelHandlerContext?
    private var helloTimer: Scheduled<Void>?
    /// The connection, once attached: it is detached when the socket goes.
    private var attached: (Connection, RoomInbox)?
    private var closeSent = false

    init(controller: SocketController, frames: ChannelHandlerContext, token: String?, takesPatches: Bool) {
        self.controller = controller
        self.frames = frames
        self.token = token
        self.takesPatches = takesPatches
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        if let token {
            admit(token: token)
        } else {
            let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
            helloTimer = context.eventLoop.scheduleTask(in: SocketController.helloTimeout) { bound.value.refuse() }
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        helloTimer?.cancel()
        self.context = nil
        frames = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        helloTimer?.cancel()
        detach()
        context.fireChannelInactive()
    }

    /// The socket is gone: nothing more is read, and the room lets the client go after what it sent.
    private func detach() {
        stage = .done
        guard let (connection, inbox) = attached else { return }
        attached = nil
        connection.ended()
        inbox.post(.detach(now: ServerClock.now()))
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        guard frame.reservedBits.isEmpty else { return startClose(code: .protocolError, reason: nil) }
        switch frame.opcode {
        case .text, .binary:
            read(frame)
        case .ping:
            // A client that pings and does not read gets no backlog of pongs: RFC 6455 lets an
            // endpoint answer only the latest ping.
            guard !closeSent, context.channel.isWritable else { return }
            context.writeAndFlush(
                wrapOutboundOut(WebSocketFrame(fin: true, opcode: .pong, data: frame.unmaskedData)), promise: nil)
        case .pong:
            break
        case .connectionClose:
            receivedClose(frame)
        default:
            // A reserved opcode (continuations were joined before this handler).
            startClose(code: .protocolError, reason: nil)
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ChannelShouldQuiesceEvent {
            // The box is stopping (`OpenSockets.closeAll`, or the HTTP server). The rooms have closed
            // their sockets already; this is for one still being admitted or waiting for its HELLO.
            startClose(.boxShuttingDown)
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        switch error {
        case is NIOWebSocketError:
            // NIO's protocol error handler, before this one, has sent the close frame (1009 for a
            // frame over the limit) and closes the socket.
            closeSent = true
            stage = .done
        case NIOWebSocketFrameAggregator.Error.accumulatedFrameSizeIsTooLarge:
            startClose(code: .messageTooLarge, reason: nil)
        case is NIOWebSocketFrameAggregator.Error:
            startClose(code: .protocolError, reason: nil)
        default:
            context.close(promise: nil)
        }
    }

    // MARK: Messages

    private func read(_ frame: WebSocketFrame) {
        let bytes = frame.unmaskedData
        var text: String?
        if frame.opcode == .text {
            guard let string = String(validating: bytes.readableBytesView, as: UTF8.self) else {
                // RFC 6455: a text message that is not UTF-8 fails the connection with 1007.
                return startClose(code: .dataInconsistentWithMessage, reason: nil)
            }
            text = string
        }
        switch stage {
        case .awaitingHello:
            helloTimer?.cancel()
            guard let text, case .hello(let hello)? = try? ClientMessage.decode(Data(text.utf8)) else {
                return refuse()
            }
            admit(token: hello.authToken)
        case .admitting:
            // Admission takes a few milliseconds; no more than the messages a client may send at
            // once (`MessageBudget`'s burst) wait for it, and the rest are dropped.
            guard waiting.count < Self.waitingLimit else { return }
            waiting.append(text)
        case .open:
            deliver(text)
        case .done:
            break
        }
    }

    /// Hands a message to the room once the socket is open.
    private func deliver(_ text: String?) {
        guard case .open(var reader, let inbox) = stage else { return }
        let now = ServerClock.now()
        let message = reader.check(text, now: now)
        // Its reply can drop a client that does not read, which ends the socket right here.
        guard case .open = stage else { return }
        stage = .open(reader, inbox)
        if let message { inbox.post(.message(message, now: now)) }
    }

    // MARK: Admission

    private func admit(token: String) {
        guard let context else { return }
        stage = .admitting
        let channel = context.channel
        let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
        let socket = Connection.Socket(
            eventLoop: channel.eventLoop,
            write: { texts, written in bound.value.write(texts, written) },
            close: { why in bound.value.startClose(why) },
            end: { channel.close(promise: nil) })
        let (controller, takesPatches) = (self.controller, self.takesPatches)
        Task {
            let admission = await controller.admit(
                token: token, socket: socket, takesPatches: takesPatches, now: ServerClock.now())
            channel.eventLoop.execute { bound.value.admitted(admission) }
        }
    }

    private func admitted(_ admission: SocketController.Admission) {
        let waiting = self.waiting
        self.waiting = []
        // The socket may have gone meanwhile: the client's close, or a lost connection.
        let gone: Bool
        if case .admitting = stage, context != nil { gone = false } else { gone = true }
        switch admission {
        case .attached(let connection, let room):
            let inbox = RoomInbox(room: room, connectionId: connection.id)
            attached = (connection, inbox)
            stage = .open(MessageReader(connection: connection, sessionId: room.id), inbox)
            // What the client sent before it went is run all the same; then it leaves.
            for text in waiting { deliver(text) }
            if gone { detach() }
        case _ where gone:
            // Nothing to tell a socket that has gone.
            break
        case .ended(let sessionEnded):
            settleThenClose(with: sessionEnded, .sessionEnded)
        case .revoked(let sessionId):
            let error = WireEncoder.error(
                .unauthorized, "This seat was taken away: kicked, left, or replaced", sessionId: sessionId,
                now: ServerClock.now())
            settleThenClose(with: error, .revoked)
        case .refused:
            refuse()
        }
    }

    /// The room's messages; none after a close frame (RFC 6455: nothing follows it).
    private func write(_ texts: [WireText], _ written: EventLoopPromise<Void>) {
        guard !closeSent, let frames else { return written.succeed() }
        SocketController.write(texts, from: frames, written)
    }

    /// ERROR UNAUTHORIZED, then close 4001.
    private func refuse() {
        let error = WireEncoder.error(
            .unauthorized, "A valid auth token is needed", sessionId: "", now: ServerClock.now())
        settleThenClose(with: error, .unauthorized)
    }

    private func settleThenClose(with text: String, _ why: SocketClose) {
        guard let context else { return }
        stage = .done
        let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
        context.eventLoop.scheduleTask(in: Self.settle) {
            let handler = bound.value
            guard !handler.closeSent, let context = handler.context else { return }
            let data = context.channel.allocator.buffer(string: text)
            context.write(handler.wrapOutboundOut(WebSocketFrame(fin: true, opcode: .text, data: data)), promise: nil)
            handler.startClose(why)
        }
    }

    // MARK: Closing

    /// The box's own close of a game socket, with the contract's code and reason.
    private func startClose(_ why: SocketClose) {
        startClose(code: WebSocketErrorCode(codeNumber: Int(why.code)), reason: why.reason)
    }

    /// Sends a close frame, after everything written before it. The client's answer ends the
    /// socket; one that does not answer is cut off after `closeTimeout`.
    private func startClose(code: WebSocketErrorCode, reason: String?) {
        stage = .done
        guard !closeSent, let context else { return }
        closeSent = true
        var data = context.channel.allocator.buffer(capacity: 2 + (reason?.utf8.count ?? 0))
        data.write(webSocketErrorCode: code)
        if let reason { data.writeString(reason) }
        context.writeAndFlush(
            wrapOutboundOut(WebSocketFrame(fin: true, opcode: .connectionClose, data: data)), promise: nil)
        let channel = context.channel
        channel.eventLoop.scheduleTask(in: SocketController.closeTimeout) { channel.close(promise: nil) }
    }

    /// The client's close frame: the answer to ours, which ends the socket, or its own close,
    /// which is answered first: 1000, or 1002 for a close frame that is malformed or has a code
    /// RFC 6455 does not allow.
    private func receivedClose(_ frame: WebSocketFrame) {
        stage = .done
        guard let context else { return }
        if !closeSent {
            closeSent = true
            var payload = frame.unmaskedData
            let malformed = payload.readableBytes == 1
            var code = WebSocketErrorCode.normalClosure
            if malformed {
                code = .protocolError
            } else if case .unknown(let number)? = payload.readWebSocketErrorCode(), !(3000...4999).contains(number) {
                code = .protocolError
            }
            var data = context.channel.allocator.buffer(capacity: 2)
            data.write(webSocketErrorCode: code)
            let channel = context.channel
            context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .connectionClose, data: data)))
                .whenComplete { _ in channel.close(promise: nil) }
        } else {
            context.close(promise: nil)
        }
    }
}
