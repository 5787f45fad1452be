import Foundation

/// A client that completes the WebSocket handshake and then never reads or answers again: a phone
/// whose Wi-Fi dropped without a goodbye, or one too busy to read. With a small receive buffer the
/// box's writes back up after a few kilobytes.
final class SilentPeer: @unchecked Sendable {
    private let fd: Int32

    init(port: Int, token: String, receiveBuffer: Int32? = nil) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        if var size = receiveBuffer {
            // Before connect, so the window the box sees is small from the start.
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw HarnessError.unexpected("connect failed") }
        let request =
            "GET /ws HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nAuthorization: Bearer \(token)\r\n\r\n"
        _ = request.withCString { send(fd, $0, strlen($0), 0) }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = recv(fd, &buffer, buffer.count, 0)
        guard count > 0, String(decoding: buffer.prefix(count), as: UTF8.self).contains(" 101 ") else {
            throw HarnessError.unexpected("no upgrade")
        }
    }

    /// Reads everything the box had sent until it closed the connection (or `timeout` passed with
    /// nothing more): the bytes read, and whether the box closed.
    func drain(timeout: Duration = .seconds(5)) -> (bytes: Int, closedByBox: Bool) {
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
