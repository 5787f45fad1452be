import Core
import Foundation
import GRDB

/// The box's SQLite database (docs/storage.md): sessions, participants with hashed tokens, and the
/// append-only command log. WAL with `synchronous = FULL`: a command is on disk before its effects go out.
struct BoxDatabase: Sendable {
    let writer: any DatabaseWriter
    /// Where the session rooms' commands are written, in batches (`Journal`).
    let journal: Journal

    static func open(path: String) throws -> BoxDatabase {
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        let pool = try DatabasePool(path: path, configuration: configuration())
        return try BoxDatabase(writer: pool, checkpointer: Checkpointer(path: path, writer: pool))
    }

    static func inMemory() throws -> BoxDatabase {
        try BoxDatabase(writer: DatabaseQueue(configuration: configuration()), checkpointer: nil)
    }

    private static func configuration() -> Configuration {
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        configuration.busyMode = .timeout(5)
        return configuration
    }

    init(writer: any DatabaseWriter, checkpointer: Checkpointer?) throws {
        self.writer = writer
        journal = Journal(writer: writer, checkpointer: checkpointer)
        // Set on the writer's connection once it is open: a pool puts it in WAL mode with
        // `synchronous = NORMAL` after the configuration's own preparation, which would leave a
        // commit in the OS's cache, not on disk.
        try writer.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
        try Self.migrator.migrate(writer)
    }

    /// The writer's `synchronous` setting (2 is FULL).
    var synchronous: Int {
        get throws {
            try writer.writeWithoutTransaction { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") ?? -1 }
        }
    }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: sessions, participants, command log") { db in
            try db.create(table: "session") { t in
                t.primaryKey("id", .text)
                t.column("joinCode", .text).notNull()
                t.column("joinToken", .text).notNull()
                t.column("tvJoinTokenHash", .text).notNull()
                t.column("settings", .jsonText).notNull()
                t.column("createdAt", .integer).notNull()
                t.column("endedAt", .integer)
                t.column("endedReason", .text)
            }
            // A join code is unique among live sessions; ended ones give theirs back.
            try db.execute(sql: "CREATE UNIQUE INDEX session_live_code ON session(joinCode) WHERE endedAt IS NULL")
            try db.create(table: "participant") { t in
                t.primaryKey("id", .text)
                t.belongsTo("session", onDelete: .cascade).notNull()
                t.column("role", .text).notNull()
                t.column("tokenHash", .text).notNull().unique()
                t.column("createdAt", .integer).notNull()
                t.column("revokedAt", .integer)
            }
            try db.create(table: "command") { t in
                t.belongsTo("session", onDelete: .cascade).notNull()
                t.column("seq", .integer).notNull()
                t.column("at", .integer).notNull()
                t.column("actor", .jsonText).notNull()
                t.column("command", .jsonText).notNull()
                t.primaryKey(["sessionId", "seq"])
            }
            try db.create(table: "played") { t in
                t.column("packId", .text).notNull()
                t.column("destinationId", .text).notNull()
                t.column("playedAt", .integer).notNull()
                t.primaryKey(["packId", "destinationId"])
            }
        }
        migrator.registerMigration("v2: session limits, boots") { db in
            try db.alter(table: "session") { t in t.add(column: "maxPlayers", .integer).notNull().defaults(to: 50) }
            try db.create(table: "boot") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("startedAt", .integer).notNull()
            }
        }
        // Each table kept in the order of its key. A command was a row of its own table, and an
        // entry in two indexes on its session (the key, and one more on `sessionId` alone): three
        // pages into the log for every save. It is now one, in its session's part of the log. A
        // participant likewise takes one page fewer.
        migrator.registerMigration("v3: command log and participants kept by key") { db in
            try db.create(table: "newCommand", options: .withoutRowID) { t in
                t.belongsTo("session", onDelete: .cascade, indexed: false).notNull()
                t.column("seq", .integer).notNull()
                t.column("at", .integer).notNull()
                t.column("actor", .jsonText).notNull()
                t.column("command", .jsonText).notNull()
                t.primaryKey(["sessionId", "seq"])
            }
            try db.execute(
                sql: "INSERT INTO newCommand (sessionId, seq, at, actor, command) "
                    + "SELECT sessionId, seq, at, actor, command FROM command")
            try db.drop(table: "command")
            try db.rename(table: "newCommand", to: "command")
            try db.create(table: "newParticipant", options: .withoutRowID) { t in
                t.primaryKey("id", .text)
                t.belongsTo("session", onDelete: .cascade, indexed: false).notNull()
                t.column("role", .text).notNull()
                t.column("tokenHash", .text).notNull().unique()
                t.column("createdAt", .integer).notNull()
                t.column("revokedAt", .integer)
            }
            try db.execute(
                sql: "INSERT INTO newParticipant (id, sessionId, role, tokenHash, createdAt, revokedAt) "
                    + "SELECT id, sessionId, role, tokenHash, createdAt, revokedAt FROM participant")
            try db.drop(table: "participant")
            try db.rename(table: "newParticipant", to: "participant")
            try db.create(index: "participant_on_sessionId", on: "participant", columns: ["sessionId"])
        }
        migrator.registerMigration("v4: session pacing") { db in
            try db.alter(table: "session") { t in t.add(column: "pacing", .jsonText) }
        }
        // Ended sessions are deleted once they are old enough (`pruneEnded`): found by their end.
        migrator.registerMigration("v5: ended sessions found by their end") { db in
            try db.execute(sql: "CREATE INDEX session_ended ON session(endedAt) WHERE endedAt IS NOT NULL")
        }
        migrator.registerMigration("v6: the rules a session is played under") { db in
            try db.alter(table: "session") { t in t.add(column: "rules", .integer) }
        }
        // A kiosk's games, player by player, for tonight's leaderboard (`KioskResults`).
        migrator.registerMigration("v7: kiosk results") { db in
            try db.create(table: "kioskResult") { t in
                t.column("day", .integer).notNull()
                t.column("sessionId", .text).notNull()
                t.column("game", .integer).notNull()
                t.column("player", .text).notNull()
                t.column("name", .text).notNull()
                t.column("points", .integer).notNull()
                t.column("recordedAt", .integer).notNull()
                t.primaryKey(["sessionId", "game", "player"])
            }
            try db.execute(sql: "CREATE INDEX kioskResult_day ON kioskResult(day)")
        }
        return migrator
    }

    /// Records a start of the box and returns how many there have been.
    func recordBoot(at now: Int64) throws -> Int {
        try writer.write { db in
            try db.execute(sql: "INSERT INTO boot (startedAt) VALUES (?)", arguments: [now])
            return Int(db.lastInsertedRowID)
        }
    }

    /// Everything one accepted command changes in the database, written in one transaction.
    struct Write: Sendable {
        var command: CommandRecord
        var newParticipant: ParticipantRecord?
        var revoked: [String] = []
        var endedReason: String?
        var played: [PlayedRecord] = []

        /// A command's save, with what its effects change in the other tables: participants whose
        /// seats it revoked, and the session's end.
        init(
            command: CommandRecord, effects: [Effect] = [], newParticipant: ParticipantRecord? = nil,
            played: [PlayedRecord] = []
        ) {
            self.command = command
            self.newParticipant = newParticipant
            self.played = played
            for effect in effects {
                switch effect {
                case .revoke(let participant): revoked.append(participant)
                case .ended(let reason): endedReason = reason
                case .send: break
                }
            }
        }
    }

    static func apply(_ write: Write, in db: Database) throws {
        if let participant = write.newParticipant {
            // Cached statements, here and for the token's lookup: a record's insert builds its SQL
            // and encodes the row each time. A sequential REST join takes about 4 % less CPU.
            try db.cachedStatement(
                sql: "INSERT INTO participant (id, sessionId, role, tokenHash, createdAt, revokedAt) "
                    + "VALUES (?, ?, ?, ?, ?, ?)"
            ).execute(arguments: [
                participant.id, participant.sessionId, participant.role.rawValue, participant.tokenHash,
                participant.createdAt, participant.revokedAt,
            ])
        }
        // The actor and command as JSON written by the wire's encoder: the record's own insert ran
        // Foundation's JSONEncoder for both, which made most of the journal's time on a busy box.
        // What is read back is the same.
        let command = write.command
        try db.cachedStatement(sql: "INSERT INTO command (sessionId, seq, at, actor, command) VALUES (?, ?, ?, ?, ?)")
            .execute(arguments: [
                command.sessionId, command.seq, command.at, WireEncoder.json(command.actor),
                WireEncoder.json(command.command),
            ])
        let at = write.command.at
        for id in write.revoked {
            try db.execute(
                sql: "UPDATE participant SET revokedAt = ? WHERE id = ? AND revokedAt IS NULL", arguments: [at, id])
        }
        if let reason = write.endedReason {
            try db.execute(
                sql: "UPDATE session SET endedAt = ?, endedReason = ? WHERE id = ?",
                arguments: [at, reason, write.command.sessionId])
        }
        for played in write.played { try played.save(db) }
    }

    /// The live sessions with their command logs, for recovery at start.
    func liveSessions() throws -> [(session: SessionRecord, commands: [CommandRecord])] {
        try writer.read { db in
            try SessionRecord.filter(Column("endedAt") == nil).order(Column("createdAt")).fetchAll(db).map { session in
                let commands = try CommandRecord.filter(Column("sessionId") == session.id).order(Column("seq"))
                    .fetchAll(db)
                return (session, commands)
            }
        }
    }

    /// One session's command log, in order.
    func commands(of sessionId: String) throws -> [CommandRecord] {
        try writer.read { db in
            try CommandRecord.filter(Column("sessionId") == sessionId).order(Column("seq")).fetchAll(db)
        }
    }

    func session(_ id: String) throws -> SessionRecord? {
        try writer.read { db in try SessionRecord.fetchOne(db, key: id) }
    }

    /// The participant a token belongs to, unless it was revoked (or also then, if asked).
    func participant(token: String, includingRevoked: Bool = false) throws -> ParticipantRecord? {
        let hash = Secrets.hash(token)
        let sql =
            includingRevoked
            ? "SELECT * FROM participant WHERE tokenHash = ?"
            : "SELECT * FROM participant WHERE tokenHash = ? AND revokedAt IS NULL"
        return try writer.read { db in try ParticipantRecord.fetchOne(db.cachedStatement(sql: sql), arguments: [hash]) }
    }

    func liveJoinCodes() throws -> Set<String> {
        try writer.read { db in Set(try String.fetchAll(db, sql: "SELECT joinCode FROM session WHERE endedAt IS NULL"))
        }
    }

    /// Destination ids played from these packs, most recently played first.
    func recentlyPlayed(packIds: Set<String>) throws -> [String] {
        guard !packIds.isEmpty else { return [] }
        let marks = Array(repeating: "?", count: packIds.count).joined(separator: ", ")
        return try writer.read { db in
            try String.fetchAll(
                db, sql: "SELECT destinationId FROM played WHERE packId IN (\(marks)) ORDER BY playedAt DESC",
                arguments: StatementArguments(packIds.sorted()))
        }
    }

    /// Deletes up to `limit` sessions that ended before `cutoff`, with their participants and
    /// command logs; returns how many went. Kept small per call, since the journal's saves wait
    /// for the writer meanwhile.
    func pruneEnded(before cutoff: Int64, limit: Int) throws -> Int {
        try writer.write { db in
            let ids = try String.fetchAll(
                db, sql: "SELECT id FROM session WHERE endedAt IS NOT NULL AND endedAt < ? ORDER BY endedAt LIMIT ?",
                arguments: [cutoff, limit])
            // The participants and the command log go with their session (ON DELETE CASCADE).
            for id in ids { try db.execute(sql: "DELETE FROM session WHERE id = ?", arguments: [id]) }
            return ids.count
        }
    }

    func integrityCheck() throws -> String {
        try writer.read { db in try String.fetchOne(db, sql: "PRAGMA integrity_check") ?? "" }
    }
}
