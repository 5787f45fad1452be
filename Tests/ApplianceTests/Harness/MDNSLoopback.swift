import Foundation

/// A private D-Bus system bus and an avahi-daemon confined to the loopback of its own network
/// namespace, so mDNS tests never touch the real network. Everything it starts is stopped by PID.
/// Needs root (network namespaces), dbus-daemon and avahi-daemon.
final class MDNSLoopback: @unchecked Sendable {
    let directory: URL
    let namespace: String
    private var bus: Int32?
    private var avahi: Int32?

    /// What clients need to reach the private bus (and through it, the daemon).
    var environment: [String: String] { ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=\(socketPath)"] }
    private var socketPath: String { directory.appendingPathComponent("system_bus_socket").path }

    init() throws {
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
        allow-interfaces=lo
        [wide-area]
        enable-wide-area=no
        [publish]
        publish-hinfo=no
        publish-workstation=no
        publish-aaaa-on-ipv4=no
        """.write(to: directory.appendingPathComponent("avahi.conf"), atomically: true, encoding: .utf8)
    }

    func start() throws {
        bus = try Self.spawn(
            "/usr/bin/dbus-daemon --config-file=\(directory.appendingPathComponent("dbus.conf").path) --nofork --nopidfile",
            log: directory.appendingPathComponent("dbus.log"))
        try wait("the private bus") { FileManager.default.fileExists(atPath: self.socketPath) }
        try Self.run("/usr/sbin/ip", ["netns", "add", namespace])
        try Self.run("/usr/sbin/ip", ["-n", namespace, "link", "set", "lo", "up"])
        try startAvahi()
    }

    /// Starts avahi-daemon in the namespace and waits until it is running (state 2).
    func startAvahi() throws {
        let conf = directory.appendingPathComponent("avahi.conf").path
        avahi = try Self.spawn(
            "ip netns exec \(namespace) sh -c 'mkdir -p /run/avahi-daemon && mount -t tmpfs tmpfs /run/avahi-daemon "
                + "&& exec avahi-daemon -f \(conf) --no-rlimits'",
            log: directory.appendingPathComponent("avahi.log"), environment: environment)
        try wait("avahi-daemon") { self.avahiState() == 2 }
    }

    func stopAvahi() {
        avahi.map(Self.terminate)
        avahi = nil
    }

    func stop() {
        stopAvahi()
        bus.map(Self.terminate)
        bus = nil
        try? Self.run("/usr/sbin/ip", ["netns", "del", namespace])
        try? FileManager.default.removeItem(at: directory)
    }

    deinit { stop() }

    /// `avahi-browse -rtp TYPE` on the private bus: the resolved ("=") lines.
    func browse(_ type: String) throws -> [String] {
        let output = try Self.run("/usr/bin/avahi-browse", ["-rtp", type], environment: environment)
        return output.split(separator: "\n").map(String.init).filter { $0.hasPrefix("=") }
    }

    private func avahiState() -> Int? {
        let output = try? Self.run(
            "/usr/bin/dbus-send",
            [
                "--system", "--print-reply=literal", "--reply-timeout=1000", "--dest=org.freedesktop.Avahi", "/",
                "org.freedesktop.Avahi.Server.GetState",
            ], environment: environment)
        return output.flatMap { Int($0.split(whereSeparator: \.isWhitespace).last ?? "") }
    }

    private func wait(_ what: String, _ ready: () -> Bool) throws {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if ready() { return }
            Thread.sleep(forTimeInterval: 0.05)
        }
        let log = (try? String(contentsOf: directory.appendingPathComponent("avahi.log"), encoding: .utf8)) ?? ""
        throw HarnessError.didNotStart("\(what) did not start: \(log)")
    }

    /// Starts a daemon in the background through the shell and returns its PID. The daemon is not
    /// this process's child (Foundation's Process would keep watching it), so it is stopped by PID.
    private static func spawn(_ command: String, log: URL, environment: [String: String] = [:]) throws -> Int32 {
        let output = try run(
            "/bin/sh", ["-c", "\(command) </dev/null >'\(log.path)' 2>&1 & echo $!"], environment: environment)
        guard let pid = Int32(output.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw HarnessError.unexpected("no PID from: \(command)")
        }
        return pid
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

    /// Runs a short command to its end and returns what it printed. Plain posix_spawn + waitpid:
    /// Foundation's Process sometimes never notices the exit of a child here.
    @discardableResult
    static func run(_ path: String, _ arguments: [String], environment: [String: String] = [:]) throws -> String {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw HarnessError.unexpected("pipe failed") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
        posix_spawn_file_actions_adddup2(&actions, fds[1], 2)
        posix_spawn_file_actions_addclose(&actions, fds[0])
        posix_spawn_file_actions_addclose(&actions, fds[1])
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let env = ProcessInfo.processInfo.environment.merging(environment) { $1 }.map { strdup("\($0)=\($1)") } + [nil]
        defer {
            argv.forEach { free($0) }
            env.forEach { free($0) }
        }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, path, &actions, nil, argv, env)
        close(fds[1])
        guard spawned == 0 else {
            close(fds[0])
            throw HarnessError.unexpected("cannot run \(path): \(String(cString: strerror(spawned)))")
        }
        var output = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(fds[0], &buffer, buffer.count)
            if count > 0 { output.append(contentsOf: buffer[0..<count]) } else if count == 0 || errno != EINTR { break }
        }
        close(fds[0])
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let text = String(decoding: output, as: UTF8.self)
        // Exited normally with status 0 (WIFEXITED and WEXITSTATUS, which Swift cannot import).
        guard status & 0x7f == 0, (status >> 8) & 0xff == 0 else {
            throw HarnessError.unexpected("\(path) \(arguments.joined(separator: " ")): \(text)")
        }
        return text
    }
}
