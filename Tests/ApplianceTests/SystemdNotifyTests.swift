import Foundation
import Testing

@testable import Appliance

/// The box as a `Type=notify` service: READY=1 once it serves, WATCHDOG=1 every half period while
/// its event loops answer, STOPPING=1 as it stops, on the socket systemd names in NOTIFY_SOCKET.
@Suite("systemd notify", .timeLimit(.minutes(5)))
struct SystemdNotifyTests {
    @Test("ready, then watchdog pings, then stopping")
    func readyWatchdogStopping() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("tripto-notify-\(UUID()).sock").path
        let listener = try Datagrams(path: path)
        defer { listener.close() }
        let box = try BoxProcess(environment: ["NOTIFY_SOCKET": path, "WATCHDOG_USEC": "600000"])
        try await box.start()
        let first = try await offTheTestThreads { try listener.receive(count: 4, within: 5) }
        #expect(first.first == "READY=1", "\(first)")
        #expect(first.dropFirst().allSatisfy { $0 == "WATCHDOG=1" } && first.count == 4, "\(first)")
        // Read while the box stops, as systemd does: a queue left full would lose STOPPING=1 (the box
        // never waits on it).
        async let last = offTheTestThreads { try listener.receive(count: 1, within: 30, skipping: "WATCHDOG=1") }
        await box.stop()
        #expect(try await last == ["STOPPING=1"])
    }

    @Test("a listener that stops reading holds up neither the box nor its stop")
    func listenerThatNeverReads() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("tripto-notify-\(UUID()).sock").path
        let listener = try Datagrams(path: path)
        defer { listener.close() }
        // A ping every 10 ms: the queue (a few datagrams) is full within a moment and stays full.
        let box = try BoxProcess(environment: ["NOTIFY_SOCKET": path, "WATCHDOG_USEC": "20000"])
        try await box.start()
        defer { box.terminate() }
        let full = try await poll(for: .seconds(10)) { listener.isFull() ? true : nil }
        #expect(full == true, "the listener's queue never filled")
        // Every ping is refused now, and the box goes on answering.
        for _ in 0..<5 {
            #expect(try await HTTP(base: box.baseURL).get("/healthz").status == 200)
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(listener.isFull())
        // STOPPING=1 waits its few seconds for room, then the box stops on its own, cleanly.
        box.terminate()
        let limit = Duration.seconds(SystemdNotifier.stateWaitSeconds + 20)
        let status = try await poll(for: limit, every: .milliseconds(100)) { box.exitStatus }
        #expect(status == 0, "the box did not stop within \(limit) with its notify socket full")
    }

    /// A Unix datagram socket bound to `path`, as systemd's notify socket is.
    final class Datagrams: Sendable {
        let descriptor: Int32
        let path: String

        init(path: String) throws {
            self.path = path
            descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { bytes in
                for (index, byte) in path.utf8.enumerated() { bytes[index] = byte }
            }
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
            guard descriptor >= 0, bound == 0 else { throw HarnessError.unexpected("cannot bind \(path)") }
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

        /// Whether the queue is full: a datagram that may not wait for room is refused. (One that is
        /// taken instead joins the queue, as the box's next ping would.)
        func isFull() -> Bool {
            let sender = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
            defer { _ = Glibc.close(sender) }
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { bytes in
                for (index, byte) in path.utf8.enumerated() { bytes[index] = byte }
            }
            let sent = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(sender, "probe", 5, Int32(MSG_DONTWAIT), $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
            return sent < 0 && errno == EAGAIN
        }

        func close() {
            _ = Glibc.close(descriptor)
            unlink(path)
        }
    }
}
