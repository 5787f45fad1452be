import Foundation
import Testing

/// Room for a venue's sockets, made before the box's `main` (`Sources/CStartup`): the soft limit on
/// open files raised to the hard one, and the kernel's table of open files grown while the process
/// has one thread, so that no `accept` waits for the table to double.
@Suite("Open files")
struct OpenFilesTests {
    static let sockets = 400

    @Test("started with a soft limit of 256 open files, the box raises it and holds 400 sockets")
    func manySockets() async throws {
        var limit = rlimit()
        #expect(getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0)
        // This test's own sockets need room too (the test process has the same start).
        try #require(
            limit.rlim_max >= 1_024, "the hard limit on open files (\(limit.rlim_max)) is too low for this test")
        let box = try BoxProcess(openFiles: 256)
        try await box.start()
        defer { box.terminate() }

        let hard = min(limit.rlim_max, 1 << 20)
        #expect(try softLimit(of: box) == Int(hard))
        #expect(try box.status("FDSize") >= min(8_192, Int(hard)))

        let port = box.port
        let open = try await offTheTestThreads { () throws -> [Int32] in
            var open: [Int32] = []
            do {
                for _ in 0..<Self.sockets { open.append(try healthz(port: port)) }
            } catch {
                for fd in open { close(fd) }
                throw HarnessError.unexpected("socket \(open.count + 1) of \(Self.sockets): \(error)")
            }
            return open
        }
        defer { for fd in open { close(fd) } }
        #expect(open.count == Self.sockets)
        #expect(try await HTTP(base: box.baseURL).get("/healthz").status == 200)
    }

    /// The soft "Max open files" of the box, from `/proc/<pid>/limits`.
    private func softLimit(of box: BoxProcess) throws -> Int {
        let pid = try #require(box.process?.processIdentifier)
        let limits = try String(contentsOfFile: "/proc/\(pid)/limits", encoding: .utf8)
        let line = try #require(limits.split(separator: "\n").first { $0.hasPrefix("Max open files") })
        return try #require(Int(line.split(whereSeparator: \.isWhitespace)[3]))
    }
}

/// A socket left open after one `GET /healthz` on it was answered.
private func healthz(port: Int) throws -> Int32 {
    let fd = try loopbackSocket(port: port)
    var wait = timeval(tv_sec: 5, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
    let request = Array("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)
    var buffer = [UInt8](repeating: 0, count: 512)
    let answered =
        request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) } == request.count
        && read(fd, &buffer, buffer.count) > 12
        && String(decoding: buffer.prefix(12), as: UTF8.self) == "HTTP/1.1 200"
    guard answered else {
        close(fd)
        throw HarnessError.unexpected("no answer to GET /healthz")
    }
    return fd
}
