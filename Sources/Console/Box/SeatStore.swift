import Core
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The seats this console has taken, so that `join` with the same code (and, for a player, the
/// same name) takes the same seat again after the console was closed: Ctrl-C, a dropped ssh
/// session. The web pages keep theirs in the browser. One JSON file, readable by its user only, in
/// `$XDG_STATE_HOME/tripto-console/` (by default `~/.local/state/tripto-console/`).
struct SeatStore: Sendable {
    let file: URL

    /// Where the seats are kept for this user.
    static var standard: SeatStore {
        let environment = ProcessInfo.processInfo.environment
        let state =
            environment["XDG_STATE_HOME"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) }
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".local/state")
        return SeatStore(file: state.appendingPathComponent("tripto-console/seats.json"))
    }

    /// The newest seats are kept, no more.
    static let limit = 50

    struct Entry: Codable, Sendable, Equatable {
        var box: String
        var role: Role
        var sessionId: String
        var joinCode: String
        var token: String
        var playerId: String?
        var name: String?
        var takenAt: Date

        var seat: Seat { Seat(role: role, sessionId: sessionId, joinCode: joinCode, token: token, playerId: playerId) }
    }

    /// The seat taken on `box` in the session of `code`, as `role` (and for a player, as `name`).
    func seat(box: String, code: String, role: Role, name: String?) -> Seat? {
        guard let code = JoinCode.normalize(code) else { return nil }
        return entries().last {
            $0.box == box && $0.joinCode == code && $0.role == role && (role != .player || $0.name == name)
        }?.seat
    }

    /// Keeps `seat` (replacing one of the same session and role, and for a player the same name).
    func keep(_ seat: Seat, box: String, name: String?) {
        update { all in
            var all = all.filter { !Self.same($0, seat, box: box, name: name) }
            all.append(
                Entry(
                    box: box, role: seat.role, sessionId: seat.sessionId, joinCode: seat.joinCode, token: seat.token,
                    playerId: seat.playerId, name: name, takenAt: Date()))
            return Array(all.suffix(Self.limit))
        }
    }

    /// Forgets `seat`: its session ended, or the box no longer knows it.
    func forget(_ seat: Seat, box: String) {
        update { all in
            let kept = all.filter { !($0.box == box && $0.sessionId == seat.sessionId && $0.token == seat.token) }
            return kept.count == all.count ? nil : kept
        }
    }

    private static func same(_ entry: Entry, _ seat: Seat, box: String, name: String?) -> Bool {
        entry.box == box && entry.sessionId == seat.sessionId && entry.role == seat.role
            && (seat.role != .player || entry.name == name)
    }

    private func entries() -> [Entry] {
        guard let data = try? Data(contentsOf: file) else { return [] }
        return (try? JSONDecoder().decode([Entry].self, from: data)) ?? []
    }

    /// Reads the seats, changes them, writes them back (unless `change` gives nil), holding an
    /// exclusive lock on `seats.lock` beside the file all along: consoles started at the same moment
    /// would otherwise each write back what they read, and every seat but the last one written would
    /// be lost (its player then finds their name taken). The lock goes with the descriptor, so it is
    /// let go however the process ends.
    private func update(_ change: ([Entry]) -> [Entry]?) {
        let folder = file.deletingLastPathComponent()
        try? FileManager.default.createDirectory(
            at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let lock = open(folder.appendingPathComponent("seats.lock").path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        defer { if lock >= 0 { close(lock) } }
        if lock >= 0 {
            while flock(lock, LOCK_EX) != 0, errno == EINTR {}
        }
        if let changed = change(entries()) { save(changed) }
    }

    /// Best effort: a console that cannot keep its seat still plays it. Written whole to a file of
    /// its own, then renamed over the old one, so a reader never sees half a file.
    private func save(_ entries: [Entry]) {
        let folder = file.deletingLastPathComponent()
        guard let data = try? JSONEncoder().encode(entries) else { return }
        let temporary = folder.appendingPathComponent(".seats-\(getpid())-\(UUID().uuidString).json")
        guard
            FileManager.default.createFile(
                atPath: temporary.path, contents: data, attributes: [.posixPermissions: 0o600])
        else { return }
        if rename(temporary.path, file.path) != 0 { try? FileManager.default.removeItem(at: temporary) }
    }
}
