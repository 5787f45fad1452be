import Foundation
import GRDB

/// Tonight's leaderboard of a kiosk: every guest's points over the night's games. A guest is known
/// from game to game by their phone's device cookie (docs/protocol.md, "Devices"), without an
/// account; a client that sends none counts as a new guest each game. The night runs from
/// `--kiosk-day-starts` (06:00) to the same time the next day, in the box's local time, and the
/// results are kept in SQLite, so a restart loses none.
struct Tonight: Sendable {
    /// Minutes after local midnight at which a venue's day starts.
    var dayStartsMinutes = 6 * 60

    /// One guest's night.
    struct Row: Codable, Sendable, Equatable {
        var rank: Int
        var name: String
        var points: Int
        var games: Int
        /// Whether it is the asking phone's own.
        var you: Bool
    }

    /// `HH:MM` (00:00–23:59) as minutes after midnight.
    static func minutes(_ text: String) -> Int? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isASCII) }),
            let hours = Int(parts[0]), let minutes = Int(parts[1]), (0..<24).contains(hours), (0..<60).contains(minutes)
        else { return nil }
        return hours * 60 + minutes
    }

    var dayStartsText: String { String(format: "%02d:%02d", dayStartsMinutes / 60, dayStartsMinutes % 60) }

    /// The venue's day of an instant: days since 1970-01-01 in local time, each starting at
    /// `dayStartsMinutes`. A game that ends at 01:30 still belongs to the evening before.
    func day(atEpochMs epochMs: Int64, utcOffsetSeconds: Int) -> Int64 {
        let ms = epochMs + Int64(utcOffsetSeconds) * 1000 - Int64(dayStartsMinutes) * 60_000
        let dayMs: Int64 = 86_400_000
        return ms >= 0 ? ms / dayMs : (ms - dayMs + 1) / dayMs
    }

    /// The day at `epochMs` in the box's time zone (TZ, else /etc/localtime).
    func day(atEpochMs epochMs: Int64) -> Int64 {
        var time = time_t(epochMs / 1000)
        var local = tm()
        localtime_r(&time, &local)
        return day(atEpochMs: epochMs, utcOffsetSeconds: Int(local.tm_gmtoff))
    }

    /// How many venue days of results are kept: what ties a phone to its names goes after that.
    static let keptDays: Int64 = 30

    /// Records a finished game's players; recording the same game again changes nothing. Results
    /// older than `keptDays` go.
    func record(
        sessionId: String, game: Int, players: [(player: String, name: String, points: Int)], at now: Int64,
        in database: BoxDatabase
    ) throws {
        let day = day(atEpochMs: now)
        try database.writer.write { db in
            for entry in players {
                try db.execute(
                    sql: """
                        INSERT OR IGNORE INTO kioskResult (day, sessionId, game, player, name, points, recordedAt)
                        VALUES (?, ?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [day, sessionId, game, entry.player, entry.name, entry.points, now])
            }
            try db.execute(sql: "DELETE FROM kioskResult WHERE day < ?", arguments: [day - Self.keptDays])
        }
    }

    /// The night's top `limit`, ranked by points (equal points share a rank), and the asking phone's
    /// own row wherever it stands.
    func standings(
        at now: Int64, you: String?, limit: Int = 10, in database: BoxDatabase
    ) throws -> (
        top: [Row], you: Row?
    ) {
        let day = day(atEpochMs: now)
        let rows = try database.writer.read { db in
            try GRDB.Row.fetchAll(
                db,
                sql: """
                    SELECT player, SUM(points) AS points, COUNT(*) AS games,
                        (SELECT name FROM kioskResult latest WHERE latest.day = kioskResult.day
                            AND latest.player = kioskResult.player ORDER BY recordedAt DESC LIMIT 1) AS name
                    FROM kioskResult WHERE day = ? GROUP BY player
                    ORDER BY points DESC, games ASC, name COLLATE NOCASE
                    """,
                arguments: [day])
        }
        var ranked: [Row] = []
        var yours: Row?
        for (index, row) in rows.enumerated() {
            let points: Int = row["points"]
            let rank = index > 0 && ranked.last?.points == points ? ranked[index - 1].rank : index + 1
            let player: String = row["player"]
            let entry = Row(rank: rank, name: row["name"], points: points, games: row["games"], you: player == you)
            ranked.append(entry)
            if entry.you { yours = entry }
        }
        return (Array(ranked.prefix(limit)), yours)
    }
}
