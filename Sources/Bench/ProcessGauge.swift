import Foundation

/// CPU time and resident memory of a process, read from /proc/<pid>/stat and /proc/<pid>/status.
struct ProcessGauge: Sendable {
    let pid: Int32

    struct Reading: Sendable {
        /// User plus system CPU seconds since the process started.
        var cpuSeconds: Double
        var rssBytes: Int
        var atMs: Double
    }

    func read() -> Reading? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        else { return nil }
        // The command name in field 2 may hold spaces; the fields after its closing parenthesis do not.
        guard let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // After the name: state is field 3, utime field 14, stime field 15 (1-based, man 5 proc).
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        var rss = 0
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            let kilobytes = line.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
            rss = kilobytes * 1024
        }
        return Reading(cpuSeconds: (user + system) / ticks, rssBytes: rss, atMs: WallClock.nowMs())
    }
}
