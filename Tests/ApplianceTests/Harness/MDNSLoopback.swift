import Foundation

/// A private D-Bus system bus and an avahi-daemon confined to the loopback of its own network
/// namespace, so mDNS tests never touch the real network. Everything it starts is stopped by PID.
/// Needs root (network namespaces), dbus-daemon and avahi-daemon.
final class MDNSLoopback: @unchecked Sendable {
    let directory: URL
    let namespace: String
    /// A second interface in the namespace (`lan0`), standing for the LAN: nothing crosses it, but
    /// avahi-daemon announces and browses on it as on any other.
    let lan: Bool
    private var bus: Int32?
    private var avahi: Int32?

    /// What clients need to reach the private bus (and through it, the daemon).
    var environment: [String: String] { ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=\(socketPath)"] }
    private var socketPath: String { directory.appendingPathComponent("system_bus_socket").path }

    init(lan: Bool = false) throws {
        self.lan = lan
        directory = URL(fileURLWithPath: "/tmp").appendingPathComponent("tripto-mdns-\(UUID().uuidString.prefix(8))")
        namespace = "tripto-\(UUID().uuidString.prefix(8).lowercased())"
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        // avahi-daemon drops to its own user before it connects to the bus.
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory.path)
        try """
        <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
        <busconfig>
          <type>system</type>
          <listen>unix:path=\(socketPath)</listen>
          <auth>EXTERNAL</auth>
          <policy context="default">
            <allow user="*"/>
            <allow own="*"/>
            <allow send_type="method_call"/>
            <allow send_type="signal"/>
            <allow send_requested_reply="true" send_type="method_return"/>
            <allow send_requested_reply="true" send_type="error"/>
            <allow receive_type="method_call"/>
            <allow receive_type="method_return"/>
            <allow receive_type="error"/>
            <allow receive_type="signal"/>
          </policy>
        </busconfig>
        """.write(to: directory.appendingPathComponent("dbus.conf"), atomically: true, encoding: .utf8)
        try """
        [server]
        use-ipv4=yes
        use-ipv6=no
        allow-interfaces=lo\(lan ? ",lan0" : "")
        [wide-area]
        enable-wide-area=no
        [publish]
        publish-hinfo=no
        publish-workstation=no
        publish-aaaa-on-ipv4=no
        """.write(to: directory.appendingPathComponent("avahi.conf"), atomically: true, encoding: .utf8)
    }

    func start() async throws {
        bus = try await Self.spawn(
            "/usr/bin/dbus-daemon --config-file=\(directory.appendingPathComponent("dbus.conf").path) --nofork --nopidfile",
            log: directory.appendingPathComponent("dbus.log"))
        try await wait("the private bus") { FileManager.default.fileExists(atPath: self.socketPath) }
        try await Shell.run("/usr/sbin/ip", ["netns", "add", namespace])
        try await Shell.run("/usr/sbin/ip", ["-n", namespace, "link", "set", "lo", "up"])
        if lan {
            // A veth pair with both ends in the namespace: avahi-daemon uses `lan0`, `lan1` is its peer.
            try await Shell.run(
                "/usr/sbin/ip", ["-n", namespace, "link", "add", "lan0", "type", "veth", "peer", "name", "lan1"])
            try await Shell.run("/usr/sbin/ip", ["-n", namespace, "addr", "add", "10.213.0.1/24", "dev", "lan0"])
            for end in ["lan0", "lan1"] {
                try await Shell.run("/usr/sbin/ip", ["-n", namespace, "link", "set", end, "up"])
            }
        }
        try await startAvahi()
    }

    /// Starts avahi-daemon in the namespace and waits until it is running (state 2).
    func startAvahi() async throws {
        let conf = directory.appendingPathComponent("avahi.conf").path
        avahi = try await Self.spawn(
            "ip netns exec \(namespace) sh -c 'mkdir -p /run/avahi-daemon && mount -t tmpfs tmpfs /run/avahi-daemon "
                + "&& exec avahi-daemon -f \(conf) --no-rlimits'",
            log: directory.appendingPathComponent("avahi.log"), environment: environment)
        try await wait("avahi-daemon") { await self.avahiState() == 2 }
    }

    /// A started loopback (with `lan0` too if asked) for `body`, stopped afterwards (also when
    /// `body` throws).
    static func running<T>(lan: Bool = false, _ body: (MDNSLoopback) async throws -> T) async throws -> T {
        let mdns = try MDNSLoopback(lan: lan)
        do {
            try await mdns.start()
            let result = try await body(mdns)
            await mdns.stop()
            return result
        } catch {
            await mdns.stop()
            throw error
        }
    }

    func stopAvahi() async {
        await Self.stop(avahi)
        avahi = nil
    }

    func stop() async {
        await stopAvahi()
        await Self.stop(bus)
        bus = nil
        _ = try? await Shell.run("/usr/sbin/ip", ["netns", "del", namespace])
        try? FileManager.default.removeItem(at: directory)
    }

    /// Only if `stop()` was not reached: the daemons are killed without waiting.
    deinit {
        for pid in [avahi, bus].compactMap({ $0 }) { kill(pid, SIGKILL) }
        if avahi != nil || bus != nil { _ = try? Shell.run("/usr/sbin/ip", ["netns", "del", namespace]) }
    }

    /// `avahi-browse -rtp TYPE` on the private bus: the resolved ("=") lines.
    func browse(_ type: String) async throws -> [String] {
        let output = try await Shell.run("/usr/bin/avahi-browse", ["-rtp", type], environment: environment)
        return output.split(separator: "\n").map(String.init).filter { $0.hasPrefix("=") }
    }

    private func avahiState() async -> Int? {
        let output = try? await Shell.run(
            "/usr/bin/dbus-send",
            [
                "--system", "--print-reply=literal", "--reply-timeout=1000", "--dest=org.freedesktop.Avahi", "/",
                "org.freedesktop.Avahi.Server.GetState",
            ], environment: environment)
        return output.flatMap { Int($0.split(whereSeparator: \.isWhitespace).last ?? "") }
    }

    private func wait(_ what: String, _ ready: () async -> Bool) async throws {
        if try await poll(for: .seconds(10), every: .milliseconds(50), { await ready() ? true : nil }) == true {
            return
        }
        let log = (try? String(contentsOf: directory.appendingPathComponent("avahi.log"), encoding: .utf8)) ?? ""
        throw HarnessError.didNotStart("\(what) did not start: \(log)")
    }

    /// Starts a daemon in the background through the shell and returns its PID. The daemon is not
    /// this process's child (Foundation's Process would keep watching it), so it is stopped by PID.
    private static func spawn(
        _ command: String, log: URL, environment: [String: String] = [:]
    ) async throws
        -> Int32
    {
        let output = try await Shell.run(
            "/bin/sh", ["-c", "\(command) </dev/null >'\(log.path)' 2>&1 & echo $!"], environment: environment)
        guard let pid = Int32(output.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw HarnessError.unexpected("no PID from: \(command)")
        }
        return pid
    }

    /// `terminate`, waited for off the test threads.
    private static func stop(_ pid: Int32?) async {
        guard let pid else { return }
        _ = try? await offTheTestThreads { terminate(pid) }
    }

    /// SIGTERM, then SIGKILL if it has not gone within 5 s.
    private static func terminate(_ pid: Int32) {
        kill(pid, SIGTERM)
        let deadline = Date().addingTimeInterval(5)
        while Date() < deadline, isAlive(pid) { Thread.sleep(forTimeInterval: 0.05) }
        if isAlive(pid) { kill(pid, SIGKILL) }
    }

    /// Running, and not a zombie waiting to be reaped.
    private static func isAlive(_ pid: Int32) -> Bool {
        guard kill(pid, 0) == 0 else { return false }
        let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
        return !stat.contains(") Z ")
    }
}
