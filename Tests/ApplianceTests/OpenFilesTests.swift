import Foundation
import Testing

/// Room for a venue's sockets, made before the box's `main` (`Sources/CTriptoSystem`): the soft limit on
/// open files raised to the hard one, and the kernel's table of open files grown while the process
/// has one thread, so that no `accept` waits for the table to double.
@Suite("Open files", .timeLimit(.minutes(5)))
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
        // Each socket closes when its `RawWebSocket` goes, at the end of the test.
        let open = try await offTheTestThreads { () throws -> [RawWebSocket] in
            try (1...Self.sockets).map { number in
                do {
                    let socket = try RawWebSocket(
                        port: port, request: "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
                        timeout: .seconds(20))
                    let head = try socket.readResponse()
                    guard head.hasPrefix("HTTP/1.1 200") else { throw HarnessError.unexpected(head) }
                    return socket
                } catch {
                    throw HarnessError.unexpected("socket \(number) of \(Self.sockets): \(error)")
                }
            }
        }
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
