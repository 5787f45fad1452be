import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A private tmux server (its own socket), whose panes run a plain shell in which the tests start
/// `tripto-console`, type into it (send-keys) and read the screen back (capture-pane).
final class Tmux: @unchecked Sendable {
    let socket = "tripto-console-\(UUID().uuidString.prefix(8))"

    /// The server's process, killed for sure at the end: a server left behind would keep every file
    /// the test runner had open, the shared CPU lock among them.
    private var server: pid_t?

    deinit {
        _ = try? Command.run("/usr/bin/tmux", ["-L", socket, "kill-server"])
        if let server { kill(server, SIGKILL) }
        try? FileManager.default.removeItem(at: stateHome)
    }

    /// Where this server's consoles keep their seats: one place per test, gone with it.
    let stateHome = FileManager.default.temporaryDirectory.appendingPathComponent("tripto-console-\(UUID())")

    /// A new pane of `width`×`height` running bash without any profile, prompt `$ `.
    func open(_ name: String, width: Int = 80, height: Int = 24) throws {
        try tmux([
            "new-session", "-d", "-s", name, "-x", "\(width)", "-y", "\(height)",
            "env -i PATH=/usr/bin:/bin HOME=/tmp XDG_STATE_HOME=\(stateHome.path) TERM=tmux-256color LANG=C.UTF-8 "
                + "PS1='$ ' bash --norc --noprofile",
        ])
        // The window keeps the size asked for, whatever clients attach.
        try tmux(["set-option", "-t", name, "window-size", "manual"])
        if server == nil { server = pid_t(try format(name, "#{pid}")) }
    }

    /// Types a command line into the pane's shell and presses Enter.
    func type(_ name: String, line: String) throws {
        try tmux(["send-keys", "-t", name, "-l", line])
        try tmux(["send-keys", "-t", name, "Enter"])
    }

    /// Sends keys by tmux's names (`Space`, `Enter`, `C-c`) or, with `literal`, as text.
    func keys(_ name: String, _ keys: String..., literal: Bool = false) throws {
        try tmux(["send-keys", "-t", name] + (literal ? ["-l"] : []) + keys)
    }

    func screen(_ name: String) throws -> [String] {
        // capture-pane ends every line with a newline, the last one too.
        var lines = try tmux(["capture-pane", "-p", "-t", name]).components(separatedBy: "\n")
        if lines.last == "" { lines.removeLast() }
        return lines
    }

    func resize(_ name: String, width: Int, height: Int) throws {
        try tmux(["resize-window", "-t", name, "-x", "\(width)", "-y", "\(height)"])
    }

    /// A tmux format of the pane, e.g. `#{alternate_on}`.
    func format(_ name: String, _ format: String) throws -> String {
        try tmux(["display-message", "-p", "-t", name, format]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Polls the screen until `condition` holds, and returns that screen.
    @discardableResult
    func wait(
        _ name: String, timeout: Double = 15, for what: String, until condition: ([String]) -> Bool
    ) async throws -> [String] {
        let deadline = Date().addingTimeInterval(timeout)
        var lines: [String] = []
        while Date() < deadline {
            lines = try screen(name)
            if condition(lines) { return lines }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw LiveFailure("\(name): waited \(timeout) s for \(what); the screen:\n" + lines.joined(separator: "\n"))
    }

    @discardableResult
    func wait(_ name: String, timeout: Double = 15, forText text: String) async throws -> [String] {
        try await wait(name, timeout: timeout, for: "“\(text)”") { $0.contains { $0.contains(text) } }
    }

    @discardableResult
    private func tmux(_ arguments: [String]) throws -> String {
        try Command.run("/usr/bin/tmux", ["-L", socket] + arguments)
    }
}
