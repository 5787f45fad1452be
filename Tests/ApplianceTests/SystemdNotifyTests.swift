import Foundation
import Testing

@testable import Appliance

/// The box as a `Type=notify` service: READY=1 once it serves, WATCHDOG=1 every half period while
/// its event loops answer, STOPPING=1 as it stops, on the socket systemd names in NOTIFY_SOCKET.
@Suite("systemd notify", .timeLimit(.minutes(5)))
struct SystemdNotifyTests {
    @Test("ready, then watchdog pings, then stopping")
    func readyWatchdogStopping() async throws {
        let listener = try Datagrams()
        defer { listener.close() }
        let box = try BoxProcess(environment: ["NOTIFY_SOCKET": listener.path, "WATCHDOG_USEC": "600000"])
        try await box.start()
        let first = try await offTheTestThreads { try listener.receive(count: 4, within: 5) }
        #expect(first.first == "READY=1", "\(first)")
        #expect(first.dropFirst().allSatisfy { $0 == "WATCHDOG=1" } && first.count == 4, "\(first)")
        // Read while the box stops, as systemd does: a queue left full would lose STOPPING=1 (the box
        // waits only a few seconds for room).
        async let last = offTheTestThreads { try listener.receive(count: 1, within: 30, skipping: "WATCHDOG=1") }
        await box.stop()
        #expect(try await last == ["STOPPING=1"])
    }

    @Test("a listener that stops reading holds up neither the box nor its stop")
    func listenerThatNeverReads() async throws {
        let listener = try Datagrams()
        defer { listener.close() }
        // A ping every 2 ms: the box's own pings fill the queue (10 datagrams by default, 512 on a
        // systemd host) within a moment; the probe, every 100 ms, adds little of its own.
        let box = try BoxProcess(environment: ["NOTIFY_SOCKET": listener.path, "WATCHDOG_USEC": "4000"])
        try await box.start()
        defer { box.terminate() }
        let full = try await poll(for: .seconds(20), every: .milliseconds(100)) { try listener.isFull() ? true : nil }
        #expect(full == true, "the listener's queue never filled")
        // Every ping is refused now, and the box goes on answering.
        for _ in 0..<5 {
            #expect(try await HTTP(base: box.baseURL).get("/healthz").status == 200)
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(try listener.isFull())
        // STOPPING=1 waits its few seconds for room, then the box stops on its own, cleanly.
        let stopping = ContinuousClock.now
        box.terminate()
        let wait = Duration.seconds(SystemdNotifier.stateWaitSeconds)
        let status = try await poll(for: wait + .seconds(20), every: .milliseconds(50)) { box.exitStatus }
        let took = ContinuousClock.now - stopping
        #expect(status == 0, "the box did not stop within \(wait + .seconds(20)) with its notify socket full")
        #expect(took >= wait - .milliseconds(500), "STOPPING=1 gave up at once (\(took)) instead of waiting")
        // What filled the queue (besides a probe or two): READY=1, then the box's pings; STOPPING=1
        // found no room.
        let queued = listener.drain().filter { $0 != Datagrams.probe }
        #expect(queued.first == "READY=1", "\(queued)")
        #expect(queued.dropFirst().contains("WATCHDOG=1"), "\(queued)")
        #expect(!queued.contains("STOPPING=1"), "\(queued)")
    }

    /// A Unix datagram socket bound to `path`, as systemd's notify socket is.
    final class Datagrams: Sendable {
        let descriptor: Int32
        let path: String

        /// Bound to a new path in the temporary folder.
        init() throws {
            path = FileManager.default.temporaryDirectory.appendingPathComponent("tripto-notify-\(UUID()).sock").path
            descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
            var address = Self.address(of: path)
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
            guard descriptor >= 0, bound == 0 else { throw HarnessError.unexpected("cannot bind \(path)") }
        }

        /// The socket address of `path`.
        static func address(of path: String) -> sockaddr_un {
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { bytes in
                for (index, byte) in path.utf8.enumerated() { bytes[index] = byte }
            }
            return address
        }

        /// The next `count` messages (less `skipping` ones), waiting at most `within` seconds in all.
        func receive(count: Int, within seconds: Int, skipping: String? = nil) throws -> [String] {
            var timeout = timeval(tv_sec: seconds, tv_usec: 0)
            setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            var messages: [String] = []
            var buffer = [UInt8](repeating: 0, count: 512)
            let deadline = Date().addingTimeInterval(Double(seconds))
            while messages.count < count, Date() < deadline {
                let received = recv(descriptor, &buffer, buffer.count, 0)
                guard received > 0 else { break }
                let message = String(decoding: buffer[0..<received], as: UTF8.self)
                if message != skipping { messages.append(message) }
            }
            return messages
        }

        /// What `isFull()` sends.
        static let probe = "probe"

        /// Whether the queue is full: a datagram that may not wait for room is refused. (One that is
        /// taken instead joins the queue, as the box's next ping would.)
        func isFull() throws -> Bool {
            let sender = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
            guard sender >= 0 else { throw HarnessError.unexpected("no socket to probe \(path) with") }
            defer { _ = Glibc.close(sender) }
            var address = Self.address(of: path)
            let sent = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(
                        sender, Self.probe, Self.probe.utf8.count, Int32(MSG_DONTWAIT), $0,
                        socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
            return sent < 0 && errno == EAGAIN
        }

        /// Every message in the queue now, without waiting for more.
        func drain() -> [String] {
            var messages: [String] = []
            var buffer = [UInt8](repeating: 0, count: 512)
            while true {
                let received = recv(descriptor, &buffer, buffer.count, Int32(MSG_DONTWAIT))
                guard received > 0 else { return messages }
                messages.append(String(decoding: buffer[0..<received], as: UTF8.self))
            }
        }

        func close() {
            _ = Glibc.close(descriptor)
            unlink(path)
        }
    }
}
