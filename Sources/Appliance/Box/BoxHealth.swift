import Foundation
import Synchronization

/// What the box knows to be wrong with itself, for `/healthz` and the host page: each part of the
/// appliance reports whether it works, in words an owner can act on. A part the owner switched off
/// (`--no-audio`, `--no-mdns`) reports nothing.
final class BoxHealth: Sendable {
    enum Part: String, CaseIterable, Codable, Sendable {
        case storage, disk, sound, mdns
    }

    struct Problem: Codable, Sendable, Equatable {
        var part: Part
        var message: String
    }

    private let problems = Mutex<[Part: String]>([:])

    /// `message` is what is wrong with `part` now, or nil once it works.
    func report(_ part: Part, _ message: String?) {
        problems.withLock { $0[part] = message }
    }

    /// What is wrong now, in a fixed order.
    var current: [Problem] {
        let reported = problems.withLock { $0 }
        return Part.allCases.compactMap { part in reported[part].map { Problem(part: part, message: $0) } }
    }

    /// A save failed with `error`: the room goes back to what is on disk, and every command fails
    /// until saving works again.
    func saveFailed(_ error: any Error) {
        let text = "\(error)"
        report(
            .storage,
            text.contains("disk is full") || text.contains("SQLITE_FULL")
                ? "The box's disk is full: the game cannot be saved"
                : "The box cannot save the game: \(text)")
    }

    /// A save succeeded: saving works (again).
    func saved() {
        // Read first: a save is frequent and almost never follows a failure.
        guard problems.withLock({ $0[.storage] != nil }) else { return }
        report(.storage, nil)
    }

    /// Free space below which the box says its disk is nearly full: a session's log grows by a few
    /// kilobytes a game, but SQLite needs room to write its log and checkpoint it.
    static let lowDiskBytes: UInt64 = 8 << 20

    /// The bytes a process that is not root may still write in `folder`'s file system, or nil if
    /// they cannot be read.
    static func freeBytes(in folder: String) -> UInt64? {
        var stats = statvfs()
        guard statvfs(folder, &stats) == 0 else { return nil }
        return UInt64(stats.f_bavail) * UInt64(stats.f_frsize)
    }

    /// Checks the free space of the folder the box keeps its data in.
    func checkDisk(at folder: String) {
        guard let free = Self.freeBytes(in: folder) else { return }
        report(
            .disk,
            free < Self.lowDiskBytes
                ? "The box's disk is nearly full (\(free >> 20) MB left in \(folder)): free some space" : nil)
    }
}
