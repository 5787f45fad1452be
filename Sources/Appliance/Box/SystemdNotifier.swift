import Foundation
import NIOCore
import NIOPosix
import ServiceLifecycle

/// Tells systemd how the box is doing, over the socket it hands a `Type=notify` service
/// (`NOTIFY_SOCKET`, as sd_notify(3) describes it; no libsystemd needed): ready once the box
/// serves, alive every half watchdog period while its event loops answer, and stopping. Without
/// the variable (started from a shell, a container) it does nothing.
struct SystemdNotifier: Sendable {
    /// The socket's path; one starting with "@" is in the abstract namespace.
    let socketPath: String?
    /// How often systemd wants to hear that the box is alive (`WATCHDOG_USEC`), if it watches.
    let watchdogPeriod: Duration?

    /// How long READY=1 and STOPPING=1 wait for room in a full queue.
    static let stateWaitSeconds = 5

    init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        socketPath = environment["NOTIFY_SOCKET"].flatMap { $0.isEmpty ? nil : $0 }
        watchdogPeriod = environment["WATCHDOG_USEC"].flatMap(Int64.init).flatMap { $0 > 0 ? .microseconds($0) : nil }
    }

    /// Sends `state` ("READY=1", "WATCHDOG=1", "STOPPING=1"); false if there is no socket or it failed.
    /// A listener whose queue is full (one that stopped reading) never holds up the box: a watchdog
    /// ping, sent from the watchdog's task, is lost at once (the next comes in half a period); the states
    /// that are sent once wait at most `stateWaitSeconds` for room.
    @discardableResult
    func notify(_ state: String) -> Bool {
        guard let socketPath else { return false }
        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        let ping = state == "WATCHDOG=1"
        if !ping {
            var wait = timeval(tv_sec: Self.stateWaitSeconds, tv_usec: 0)
            setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var path = Array(socketPath.utf8)
        if path.first == UInt8(ascii: "@") { path[0] = 0 }
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard path.count < capacity else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { bytes in
            for (index, byte) in path.enumerated() { bytes[index] = byte }
        }
        let length = socklen_t(MemoryLayout<sockaddr_un>.offset(of: \.sun_path)! + path.count)
        let sent = Array(state.utf8).withUnsafeBytes { message in
            withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(
                        descriptor, message.baseAddress, message.count,
                        Int32(MSG_NOSIGNAL) | (ping ? Int32(MSG_DONTWAIT) : 0), $0,
                        length)
                }
            }
        }
        return sent == state.utf8.count
    }
}

/// Tells systemd the box is ready once it listens, then pings its watchdog while the box works:
/// every half period, once each event loop has run a task. A loop that hangs (every socket and room
/// on it with it) stops the pings, and systemd restarts the box; the sessions come back from their
/// logs.
struct SystemdWatchdog: Service {
    let notifier: SystemdNotifier
    /// Yields once the server listens.
    let listening: AsyncStream<Void>

    func run() async throws {
        defer { notifier.notify("STOPPING=1") }
        var iterator = listening.makeAsyncIterator()
        guard await iterator.next() != nil else { return }
        notifier.notify("READY=1")
        guard let period = notifier.watchdogPeriod else {
            try? await gracefulShutdown()
            return
        }
        let loops = Array(MultiThreadedEventLoopGroup.singleton.makeIterator())
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                for loop in loops { try await loop.submit {}.get() }
                notifier.notify("WATCHDOG=1")
                try await Task.sleep(for: period / 2)
            }
        }
    }
}
