import Foundation

/// A client that completes the WebSocket handshake and then never reads or answers again: a phone
/// whose Wi-Fi dropped without a goodbye, or one too busy to read. With a small receive buffer the
/// box's writes back up after a few kilobytes.
final class SilentPeer: @unchecked Sendable {
    private let fd: Int32

    /// Connects and completes the handshake, off the test threads (the socket blocks).
    static func connect(port: Int, token: String, receiveBuffer: Int32? = nil) async throws -> SilentPeer {
        try await offTheTestThreads { try SilentPeer(port: port, token: token, receiveBuffer: receiveBuffer) }
    }

    private init(port: Int, token: String, receiveBuffer: Int32?) throws {
        fd = try loopbackSocket(port: port, receiveBuffer: receiveBuffer)
        let request = RawWebSocket.upgrade(port: port, token: token)
        _ = request.withCString { send(fd, $0, strlen($0), 0) }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = recv(fd, &buffer, buffer.count, 0)
        guard count > 0, String(decoding: buffer.prefix(count), as: UTF8.self).contains(" 101 ") else {
            throw HarnessError.unexpected("no upgrade")
        }
    }

    /// Reads everything the box had sent until it closed the connection (or `timeout` passed with
    /// nothing more): the bytes read, and whether the box closed.
    func drain(timeout: Duration = .seconds(5)) async throws -> (bytes: Int, closedByBox: Bool) {
        try await offTheTestThreads { self.drainBlocking(timeout: timeout) }
    }

    private func drainBlocking(timeout: Duration) -> (bytes: Int, closedByBox: Bool) {
        var wait = timeval(tv_sec: Int(timeout.components.seconds), tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var total = 0
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count > 0 {
                total += count
            } else {
                // 0: the box closed; -1: a reset (also the box closing) or the timeout.
                return (total, count == 0 || errno == ECONNRESET)
            }
        }
    }

    func close() { _ = Glibc.close(fd) }
}
