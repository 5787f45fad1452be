import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Short commands the console tests run (tmux, zbarimg, systemd-analyze).
enum Command {
    /// Runs a short command; its output went to a file, so no pipe can fill up or be left open.
    /// `errors: false` drops what it writes to stderr (zbarimg complains there about a missing D-Bus).
    static func run(_ path: String, _ arguments: [String], errors: Bool = true) throws -> String {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("tmux-\(UUID().uuidString).out")
        defer { try? FileManager.default.removeItem(at: file) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, file.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        if errors {
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        } else {
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        }
        // A tmux server started from here must die when it is told to.
        let pid = try spawn(path, arguments, actions: &actions)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let output = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
        guard status == 0 else { throw LiveFailure("\(path) \(arguments.joined(separator: " ")): \(output)") }
        return output
    }
}

/// Starts `path` with every signal at its default and none blocked, whatever the test runner set,
/// and the files `actions` gives it.
func spawn(_ path: String, _ arguments: [String], actions: inout posix_spawn_file_actions_t) throws -> pid_t {
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var all = sigset_t()
    var none = sigset_t()
    sigfillset(&all)
    sigemptyset(&none)
    posix_spawnattr_setsigdefault(&attributes, &all)
    posix_spawnattr_setsigmask(&attributes, &none)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
    let argv = ([path] + arguments).map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var pid: pid_t = 0
    guard posix_spawn(&pid, path, &actions, &attributes, argv, environ) == 0 else {
        throw LiveFailure("cannot run \(path)")
    }
    return pid
}

/// Runs blocking work (starting or killing the box) on a dispatch thread, so an async test waiting
/// for it never holds one of the few threads every other test's sockets and timers need.
func offTheTestThreads<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) async throws -> Value {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async { continuation.resume(with: Result { try work() }) }
    }
}
