import Foundation

/// The box's data folder, held for as long as the box runs. Two boxes on one folder would each
/// write the same sessions' logs and refuse each other's saves (a second `tripto serve` started by
/// hand next to the service): the second one stops at its start instead, naming the first.
///
/// The hold is a `flock` on `tripto.lock` in the folder, which the kernel lets go of when the process
/// ends however it ends, so a box killed with `kill -9` leaves nothing to clean up.
final class DataFolder: Sendable {
    private let lock: Int32

    /// Makes the folder if need be and holds it; throws, in words, when it cannot.
    init(_ path: String) throws(CannotStart) {
        if FileSystemErrors.isNotAFolder(path) {
            throw CannotStart(description: "the data folder \(path) is a file, not a folder: give another --data-dir")
        }
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw CannotStart(description: "cannot make the data folder \(path): \(FileSystemErrors.reason(error))")
        }
        let lockPath = (path as NSString).appendingPathComponent("tripto.lock")
        let lock = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard lock >= 0 else {
            throw CannotStart(description: "cannot open \(lockPath): \(String(cString: strerror(errno)))")
        }
        guard flock(lock, LOCK_EX | LOCK_NB) == 0 else {
            // Another holder is EWOULDBLOCK; anything else (a network file system without locks) is
            // said as it is, not blamed on a PID that may be long gone.
            let failure = errno
            guard failure == EWOULDBLOCK else {
                close(lock)
                throw CannotStart(description: "cannot lock \(lockPath): \(String(cString: strerror(failure)))")
            }
            let holder = (try? String(contentsOfFile: lockPath, encoding: .utf8))?.trimmingCharacters(
                in: .whitespacesAndNewlines)
            close(lock)
            let who = holder.flatMap { $0.isEmpty ? nil : "another tripto (PID \($0))" } ?? "another tripto"
            throw CannotStart(
                description: "the data folder \(path) is in use by \(who): stop it, or give this one another --data-dir"
            )
        }
        // Who holds it, for the message above (the hold itself is the lock: a box that cannot write
        // its PID here still holds the folder).
        let pid = Array("\(getpid())\n".utf8)
        _ = ftruncate(lock, 0)
        _ = pwrite(lock, pid, pid.count, 0)
        self.lock = lock
    }

    deinit { close(lock) }
}
