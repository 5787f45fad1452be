import CTriptoSystem
import Core
import Foundation
import GRDB
import Synchronization
import Testing

@testable import Appliance

@Suite("Durability", .timeLimit(.minutes(5)))
struct DurabilityTests {
    /// GRDB's pool switches a WAL database to `synchronous = NORMAL` as it opens; the box's writer
    /// must still sync every commit (docs/storage.md, "Durability").
    @Test("the box's database syncs every commit to disk (synchronous = FULL), in a file and in memory")
    func everyCommitIsSynced() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tripto-durability-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        let onDisk = try BoxDatabase.open(path: folder.appendingPathComponent("tripto.sqlite").path)
        #expect(try onDisk.synchronous == 2)
        let inMemory = try BoxDatabase.inMemory()
        #expect(try inMemory.synchronous == 2)
    }

    /// SQLite's own checkpoint runs inside the commit that fills the log, and every save of the box
    /// waited for it; the box turns it off and checkpoints on the side (`Checkpointer`).
    @Test("the write-ahead log is checkpointed beside the writer, and starts again after each pause")
    func logStartsAgainAfterPauses() async throws {
        let log = try await LogUnderLoad()
        #expect(try await log.autocheckpoint == 0)
        // Bursts of 150 commands with pauses, the way a game's come: 10 MB if left in the log, and
        // SQLite's own checkpoints would let it reach 4 MB. Each burst adds 0.6 MB (a page each).
        for burst in 0..<16 {
            try await log.save(150)
            // A checkpoint runs 100 ms into the pause; wait until it has copied the burst, so that
            // the next one starts the log again. On a loaded machine a checkpoint that was running
            // as the burst ended can leave a few saves to copy: the pause copies them too.
            try await log.checkpointed()
            #expect(log.size < 1_500_000, "write-ahead log of \(log.size) bytes after burst \(burst)")
        }
        #expect(try await log.saved == 2_400)
        // Every save here finds the journal idle; one timer at a time watches for the pause.
        let timers = try #require(log.database.journal.checkpointer).pauseTimers
        #expect(timers < 600, "\(timers) timers set for 2,400 saves")
    }

    /// A checkpoint syncs both files, and the transaction after it starts the log again with a sync
    /// of its own before the one of its commit: a living room's one command every few seconds took
    /// four syncs when every pause was checkpointed.
    @Test("a quiet box's few saves stay in the log over its pauses, until enough have come")
    func fewSavesWaitInTheLog() async throws {
        let log = try await LogUnderLoad()
        let checkpointer = try #require(log.database.journal.checkpointer)
        for _ in 0..<5 {
            try await log.save(1)
            try await Task.sleep(for: .milliseconds(250))
        }
        #expect(checkpointer.checkpoints == 0)
        #expect(checkpointer.settledTransactions == 0)
        try await log.save(checkpointer.pauseMinimum)
        try await log.checkpointed()
        #expect(checkpointer.settledTransactions >= checkpointer.pauseMinimum)
        #expect(try await log.saved == 5 + checkpointer.pauseMinimum)
    }

    @Test("a write-ahead log that never gets a pause is still started again past 16 MB")
    func logStartsAgainWithoutPauses() async throws {
        let log = try await LogUnderLoad()
        // 12,000 commands back to back: 49 MB if the log were never started again.
        try await log.save(12_000)
        #expect(log.size < 24_000_000, "write-ahead log of \(log.size) bytes")
        #expect(try await log.saved == 12_000)
    }

    /// The third migration rebuilds the command log and the participants as tables kept by their
    /// key; a box updated with sessions on it must come back with every one of them.
    @Test("a database from before the command log was kept by key keeps every session, token and command")
    func migrationKeepsEverything() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tripto-migration-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent("tripto.sqlite").path
        let sessions = ["s_a", "s_b"].map { id in
            SessionRecord(
                id: id, joinCode: id == "s_a" ? "1111" : "2222", joinToken: "j_\(id)", tvJoinTokenHash: "tv_\(id)",
                settings: Settings(packId: "p", language: .sv), maxPlayers: 50, createdAt: 1)
        }
        let participants = sessions.flatMap { session in
            (0..<3).map { n in
                ParticipantRecord(
                    id: "\(session.id)_p\(n)", sessionId: session.id, role: n == 0 ? .host : .player,
                    tokenHash: "hash_\(session.id)_\(n)", createdAt: 2, revokedAt: n == 2 ? 5 : nil)
            }
        }
        let commands = sessions.flatMap { session in
            (1...40).map { seq in
                CommandRecord(
                    sessionId: session.id, seq: seq, at: Int64(seq), actor: seq == 1 ? .box : .participant("p"),
                    command: seq == 1 ? .join(playerId: "\(session.id)_p1", name: "Åsa") : .nextClue)
            }
        }
        do {
            let before = try DatabaseQueue(path: path)
            try BoxDatabase.migrator.migrate(before, upTo: "v2: session limits, boots")
            try before.write { db in
                // The columns a session had then (`pacing` came in v4).
                for record in sessions {
                    try db.execute(
                        sql: "INSERT INTO session (id, joinCode, joinToken, tvJoinTokenHash, settings, maxPlayers, "
                            + "createdAt) VALUES (?, ?, ?, ?, ?, ?, ?)",
                        arguments: [
                            record.id, record.joinCode, record.joinToken, record.tvJoinTokenHash,
                            String(decoding: try JSONEncoder().encode(record.settings), as: UTF8.self),
                            record.maxPlayers, record.createdAt,
                        ])
                }
                for record in participants { try record.insert(db) }
                for record in commands { try record.insert(db) }
            }
            try before.close()
        }

        let database = try BoxDatabase.open(path: path)
        let live = try database.liveSessions()
        #expect(live.map(\.session.id) == ["s_a", "s_b"])
        // Sessions from before their pace was kept replay at the box's.
        #expect(live.allSatisfy { $0.session.pacing == nil && $0.session.maxPlayers == 50 })
        for (session, log) in live {
            #expect(log.map(\.seq) == Array(1...40))
            #expect(log == commands.filter { $0.sessionId == session.id })
        }
        #expect(try database.participant(token: "x") == nil)
        let kept = try database.writer.read { db in
            try ParticipantRecord.order(Column("id")).fetchAll(db)
        }
        #expect(kept == participants.sorted { $0.id < $1.id })
        let schema = try database.writer.read { db in
            try Row.fetchAll(db, sql: "SELECT name, sql FROM sqlite_master WHERE sql IS NOT NULL").map {
                (name: $0["name"] as String, sql: $0["sql"] as String)
            }
        }
        #expect(
            schema.filter { ["command", "participant"].contains($0.name) }.allSatisfy {
                $0.sql.hasSuffix("WITHOUT ROWID")
            })
        #expect(Set(schema.map(\.name)).isSuperset(of: ["participant_on_sessionId", "session_live_code"]))
        #expect(!schema.contains { $0.name == "command_on_sessionId" })
        let foreignKeys = try database.writer.read { db in try Row.fetchAll(db, sql: "PRAGMA foreign_key_check") }
        #expect(foreignKeys.isEmpty)
        #expect(try database.integrityCheck() == "ok")
        // Deleting a session still takes its participants and commands with it.
        try database.writer.write { db in _ = try SessionRecord.deleteOne(db, key: "s_a") }
        let left = try database.writer.read { db in
            (
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM command") ?? -1,
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM participant") ?? -1
            )
        }
        #expect(left == (40, 3))
    }
}

/// A box database in a temporary folder, and commands saved through its journal one at a time.
private final class LogUnderLoad {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tripto-log-\(UUID())")
    let path: String
    let database: BoxDatabase
    private let session = SessionRecord(
        id: "s_log", joinCode: "4242", joinToken: "j", tvJoinTokenHash: "h",
        settings: Settings(packId: "p", language: .sv), maxPlayers: 50, createdAt: 0)
    private var seq = 0

    init() async throws {
        path = folder.appendingPathComponent("tripto.sqlite").path
        database = try BoxDatabase.open(path: path)
    }

    deinit { try? FileManager.default.removeItem(at: folder) }

    var autocheckpoint: Int? {
        get async throws {
            try await database.writer.writeWithoutTransaction { db in
                try Int.fetchOne(db, sql: "PRAGMA wal_autocheckpoint")
            }
        }
    }

    var size: Int { (try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int) ?? 0 }

    var saved: Int? {
        get async throws {
            try await database.writer.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM command") }
        }
    }

    /// Returns once the log holds fewer than the checkpointer's `pauseMinimum` commands since it
    /// last started again (or fails after 10 s). A slow machine can pause within a burst: a
    /// checkpoint then comes there, and the few saves after it stay in the log.
    func checkpointed() async throws {
        let checkpointer = try #require(database.journal.checkpointer)
        let due = seq - (checkpointer.pauseMinimum - 1)
        let settled = try await poll(for: .seconds(10)) { checkpointer.settledTransactions >= due ? true : nil }
        #expect(settled == true, "no checkpoint of the last commands")
    }

    /// Saves `count` commands, each once the one before it is on disk.
    func save(_ count: Int) async throws {
        for _ in 0..<count {
            seq += 1
            let command = CommandRecord(sessionId: session.id, seq: seq, at: 0, actor: .box, command: .nextClue)
            let result: Result<Void, any Error> = await withCheckedContinuation { done in
                database.journal.submit(.init(command: command), creating: seq == 1 ? session : nil) { result in
                    done.resume(returning: result)
                }
            }
            try result.get()
        }
    }
}

/// A room's messages wait for the saves before them, and so for the journal's thread (`Journal`).
@Suite("Journal thread", .timeLimit(.minutes(5)))
struct JournalThreadTests {
    /// What the journal's callback saw, on the thread it was called on.
    struct Report: Sendable {
        var saved: Bool
        var thread: pid_t
        var name: String?
        var sched: String?
    }

    @Test(
        "a write handed in as the journal goes away is saved on its own thread, with a short slice; then it ends"
    )
    func threadOfItsOwn() async throws {
        let report = Mutex<Report?>(nil)
        do {
            let database = try BoxDatabase.inMemory()
            let session = SessionRecord(
                id: "s_thread", joinCode: "4343", joinToken: "j", tvJoinTokenHash: "h",
                settings: Settings(packId: "p", language: .sv), maxPlayers: 50, createdAt: 0)
            let command = CommandRecord(sessionId: session.id, seq: 1, at: 0, actor: .box, command: .nextClue)
            database.journal.submit(.init(command: command), creating: session) { result in
                let seen = Report(
                    saved: (try? result.get()) != nil, thread: tripto_thread_id(),
                    name: try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8),
                    sched: try? String(contentsOfFile: "/proc/thread-self/sched", encoding: .utf8))
                report.withLock { $0 = seen }
            }
            // The database goes away here, most likely before the journal's thread has taken the write.
        }
        let seen = try #require(
            try await poll(for: .seconds(5)) { report.withLock { $0 } }, "the write was never saved")
        #expect(seen.saved)
        #expect(seen.name == "tripto.journal\n")
        // The scheduler's figures are in /proc on kernels built with them; the slice, from Linux 6.12.
        if try Self.kernelHasCustomSlices(), let sched = seen.sched {
            let slice = sched.split(separator: "\n").first { $0.hasPrefix("se.slice") }
            #expect(slice?.split(separator: ":").last?.trimmingCharacters(in: .whitespaces) == "\(Journal.slice)")
        }
        // With its journal gone and nothing left to save, the thread ends.
        let task = "/proc/self/task/\(seen.thread)"
        let ended = try await poll(for: .seconds(5)) { FileManager.default.fileExists(atPath: task) ? nil : true }
        #expect(ended == true, "the journal's thread outlived its journal")
    }

    /// Linux 6.12 and later give a normal thread the slice it asks for.
    private static func kernelHasCustomSlices() throws -> Bool {
        let release = try String(contentsOfFile: "/proc/sys/kernel/osrelease", encoding: .utf8)
        let parts = release.split(whereSeparator: { !$0.isNumber }).prefix(2).compactMap { Int($0) }
        guard parts.count == 2 else { return false }
        return (parts[0], parts[1]) >= (6, 12)
    }
}
