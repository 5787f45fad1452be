import Foundation
import Synchronization
import Testing

@testable import Console

#if canImport(Glibc)
    import Glibc
#endif

/// The keyboard's reader thread: a console that plays seat after seat starts one per seat, so a
/// stopped one must be gone, not waiting in a `read` for the next key.
@Suite("console keyboard", .timeLimit(.minutes(5)))
struct KeyReaderTests {
    final class Heard: Sendable {
        let chunks = Mutex<[[UInt8]]>([])
    }

    @Test("keys are handed over as they come; once stopped, the reader takes no more")
    func stopsAtOnce() async throws {
        var ends: [Int32] = [-1, -1]
        try #require(pipe(&ends) == 0)
        defer {
            close(ends[0])
            close(ends[1])
        }
        let heard = Heard()
        let reader = KeyReader(reading: ends[0]) { bytes in heard.chunks.withLock { $0.append(bytes) } }
        var key: [UInt8] = [UInt8(ascii: "a")]
        #expect(write(ends[1], &key, 1) == 1)
        try await waitUntil { heard.chunks.withLock { $0 } == [[UInt8(ascii: "a")]] }

        reader.stop()
        try await Task.sleep(for: .milliseconds(200))
        // The next key stays for whoever reads next.
        key = [UInt8(ascii: "b")]
        #expect(write(ends[1], &key, 1) == 1)
        try await Task.sleep(for: .milliseconds(200))
        #expect(heard.chunks.withLock { $0 } == [[UInt8(ascii: "a")]])
        var left: [UInt8] = [0]
        #expect(read(ends[0], &left, 1) == 1 && left == [UInt8(ascii: "b")])
    }

    private func waitUntil(_ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(5)
        while !condition() {
            try #require(ContinuousClock.now < deadline, "not within 5 s")
            try await Task.sleep(for: .milliseconds(10))
        }
    }
}
