import Foundation

/// A WebSocket client that writes frames byte by byte, as the tests choose them (fragments, reserved
/// bits, unknown opcodes, any close code), and reads the box's frames back undecoded. Blocking
/// calls on a plain socket, with a read timeout.
final class RawWebSocket: @unchecked Sendable {
    struct Frame: Equatable {
        var opcode: UInt8
        var payload: [UInt8]
        var text: String { String(decoding: payload, as: UTF8.self) }
        /// The code of a close frame, if it has one.
        var closeCode: Int? {
            opcode == 0x8 && payload.count >= 2 ? Int(payload[0]) << 8 | Int(payload[1]) : nil
        }
    }

    private let fd: Int32
    private var received: [UInt8] = []

    /// Connects to the box on loopback; `request` is written as it is (an upgrade, or anything else).
    /// `receiveBuffer`: a small one makes the box's writes back up soon when the test does not read.
    init(port: Int, request: String, timeout: Duration = .seconds(10), receiveBuffer: Int32? = nil) throws {
        fd = try loopbackSocket(port: port, receiveBuffer: receiveBuffer)
        var wait = timeval(tv_sec: Int(timeout.components.seconds), tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        write(Array(request.utf8))
    }

    /// An upgrade request for `path`, with the token as a bearer header when there is one.
    static func upgrade(port: Int, path: String = "/ws", token: String? = nil) -> String {
        "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
            + (token.map { "Authorization: Bearer \($0)\r\n" } ?? "") + "\r\n"
    }

    /// Opens a socket to `/ws` and reads the 101 response.
    static func open(port: Int, token: String? = nil, receiveBuffer: Int32? = nil) throws -> RawWebSocket {
        let socket = try RawWebSocket(
            port: port, request: upgrade(port: port, token: token), receiveBuffer: receiveBuffer)
        let head = try socket.readHead()
        guard head.hasPrefix("HTTP/1.1 101") else { throw HarnessError.unexpected("no upgrade: \(head)") }
        return socket
    }

    /// A frame as a client sends it: masked (unless told otherwise), with the given bits.
    static func frame(
        _ opcode: UInt8, _ payload: [UInt8], fin: Bool = true, reserved: UInt8 = 0, masked: Bool = true
    ) -> [UInt8] {
        var bytes: [UInt8] = [(fin ? 0x80 : 0) | (reserved << 4) | opcode]
        let maskBit: UInt8 = masked ? 0x80 : 0
        switch payload.count {
        case ..<126:
            bytes.append(maskBit | UInt8(payload.count))
        case ..<65_536:
            bytes.append(maskBit | 126)
            bytes += [UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        default:
            bytes.append(maskBit | 127)
            bytes += (0..<8).reversed().map { UInt8((payload.count >> ($0 * 8)) & 0xFF) }
        }
        guard masked else { return bytes + payload }
        let mask: [UInt8] = [0x37, 0xFA, 0x21, 0x3D]
        bytes += mask
        bytes += payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
        return bytes
    }

    static func text(_ string: String, fin: Bool = true) -> [UInt8] { frame(0x1, Array(string.utf8), fin: fin) }

    /// A close frame with `code`.
    static func close(_ code: Int) -> [UInt8] { frame(0x8, [UInt8(code >> 8), UInt8(code & 0xFF)]) }

    func write(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { return }
            offset += sent
        }
    }

    /// The HTTP response head, up to its blank line.
    func readHead() throws -> String {
        while true {
            if let end = received.firstRange(of: Array("\r\n\r\n".utf8)) {
                let head = String(decoding: received[..<end.lowerBound], as: UTF8.self)
                received.removeSubrange(..<end.upperBound)
                return head
            }
            guard try fill() else { throw HarnessError.unexpected("closed before a response") }
        }
    }

    /// An HTTP response's head, its body (by its Content-Length) read and dropped.
    func readResponse() throws -> String {
        let head = try readHead()
        let length =
            head.split(separator: "\r\n").compactMap { line -> Int? in
                let parts = line.split(separator: ":", maxSplits: 1)
                guard parts.count == 2, parts[0].lowercased() == "content-length" else { return nil }
                return Int(parts[1].trimmingCharacters(in: .whitespaces))
            }.first ?? 0
        while received.count < length {
            guard try fill() else { throw HarnessError.unexpected("closed inside a body") }
        }
        received.removeSubrange(..<length)
        return head
    }

    /// The next frame from the box; nil once the box has closed the connection.
    func readFrame() throws -> Frame? {
        while true {
            if received.count >= 2 {
                var length = Int(received[1] & 0x7F)
                var start = 2
                if length == 126, received.count >= 4 {
                    length = Int(received[2]) << 8 | Int(received[3])
                    start = 4
                } else if length == 127, received.count >= 10 {
                    length = received[2..<10].reduce(0) { $0 << 8 | Int($1) }
                    start = 10
                }
                if length < 126 || start > 2, received.count >= start + length {
                    let frame = Frame(opcode: received[0] & 0x0F, payload: Array(received[start..<(start + length)]))
                    received.removeSubrange(..<(start + length))
                    return frame
                }
            }
            guard try fill() else { return nil }
        }
    }

    /// Frames until one of type `type` (a text frame whose JSON has that `"type"`), or nil if the box
    /// closed first; `skipped` gets what came before it.
    func readMessage(_ type: String, skipped: inout [Frame]) throws -> Frame? {
        while let frame = try readFrame() {
            if frame.opcode == 0x1, frame.text.contains("\"type\":\"\(type)\"") { return frame }
            skipped.append(frame)
        }
        return nil
    }

    func readMessage(_ type: String) throws -> Frame? {
        var skipped: [Frame] = []
        return try readMessage(type, skipped: &skipped)
    }

    /// The close frame the box sends, skipping other frames; then, with the close answered as a
    /// client does, whether the box hung up.
    func readClose() throws -> (code: Int?, closed: Bool) {
        while let frame = try readFrame() {
            guard frame.opcode == 0x8 else { continue }
            write(Self.frame(0x8, frame.payload.count >= 2 ? Array(frame.payload[..<2]) : []))
            return (frame.closeCode, try readFrame() == nil)
        }
        return (nil, true)
    }

    /// False once the box closed the connection; throws on the timeout.
    private func fill() throws -> Bool {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let count = recv(fd, &buffer, buffer.count, 0)
        if count > 0 {
            received += buffer[..<count]
            return true
        }
        if count == 0 || errno == ECONNRESET { return false }
        throw HarnessError.unexpected("no reply from the box (errno \(errno))")
    }

    deinit { Glibc.close(fd) }
}

/// A TCP socket connected to the box on loopback. `receiveBuffer` is set before the connect, so the
/// window the box sees is small from the start.
func loopbackSocket(port: Int, receiveBuffer: Int32? = nil) throws -> Int32 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    if var size = receiveBuffer {
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
    guard connected == 0 else {
        Glibc.close(fd)
        throw HarnessError.unexpected("connect failed")
    }
    return fd
}
