import Foundation

/// Short commands the tests run (ip, avahi-browse, systemd-analyze …).
enum Shell {
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

    /// The same, for async tests (see `offTheTestThreads`).
    @discardableResult
    static func run(
        _ path: String, _ arguments: [String], environment: [String: String] = [:]
    ) async throws
        -> String
    {
        try await offTheTestThreads { try run(path, arguments, environment: environment) as String }
    }
}

/// Runs blocking work (a child process, a pipe read) on a dispatch thread, so an async test waiting
/// for it never holds one of the few threads every other test's sockets and timers need.
func offTheTestThreads<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) async throws -> Value {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async { continuation.resume(with: Result { try work() }) }
    }
}
