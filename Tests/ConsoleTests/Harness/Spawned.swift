import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A command left running (`tripto-console bots`), its output going to a file; signalled and
/// waited for by the test. Started by `spawn`, every signal at its default, so that SIGINT reaches
/// the command's own handler.
final class Spawned: @unchecked Sendable {
    let pid: pid_t
    private let file: URL
    private var status: Int32?

    init(_ path: String, _ arguments: [String]) throws {
        file = FileManager.default.temporaryDirectory.appendingPathComponent("spawned-\(UUID().uuidString).out")
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, file.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        pid = try spawn(path, arguments, actions: &actions)
    }

    /// What it has written so far (stdout and stderr).
    var output: String { (try? String(contentsOf: file, encoding: .utf8)) ?? "" }

    func signal(_ number: Int32) { if status == nil { kill(pid, number) } }

    /// Its exit status (128 + the signal when a signal ended it), once it has ended; nil when it
    /// has not within `timeout` seconds.
    func exitStatus(within timeout: Double) async -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while status == nil, Date() < deadline {
            var raw: Int32 = 0
            if waitpid(pid, &raw, WNOHANG) == pid {
                status = raw & 0x7f == 0 ? (raw >> 8) & 0xff : 128 + (raw & 0x7f)
                break
            }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return status
    }

    deinit {
        if status == nil {
            kill(pid, SIGKILL)
            var raw: Int32 = 0
            waitpid(pid, &raw, 0)
        }
        try? FileManager.default.removeItem(at: file)
    }
}
