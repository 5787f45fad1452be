import HummingbirdCore
import Logging
import NIOCore

/// Hummingbird's child channel, with smaller read buffers for each accepted socket.
///
/// A NIO channel keeps its receive buffers for reuse, sized by its allocator: 2 KB each by default.
/// A client of the box sends messages of a few hundred bytes, so these start at 512 bytes; the
/// allocator still grows them, read by read, for a large message (a browser's upgrade request of
/// more than 512 bytes leaves 1 KB). About 1.5 KB less memory per socket of the load generator
/// (docs/bench.md, "Sixth round").
struct LeanReadBuffers<Base: ServerChildChannel>: ServerChildChannel {
    typealias Value = Base.Value

    static var allocator: AdaptiveRecvByteBufferAllocator {
        AdaptiveRecvByteBufferAllocator(minimum: 64, initial: 512, maximum: 65_536)
    }

    let base: Base

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        do {
            try channel.syncOptions?.setOption(ChannelOptions.recvAllocator, value: Self.allocator)
        } catch {
            logger.debug("read buffer size not set", metadata: ["error": "\(error)"])
        }
        return base.setup(channel: channel, logger: logger)
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}
