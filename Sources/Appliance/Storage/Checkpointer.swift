import Dispatch
import GRDB
import Synchronization

/// Copies the write-ahead log back into the database file, on a connection and a thread of its
/// own, so that no save waits for it.
///
/// Left to itself, SQLite does this inside the commit that takes the log past 1,000 pages, on the
/// writer's connection: that commit then writes the pages into the database file and syncs it, and
/// every save queued in the journal, of every session, waits. Syncs are not always quick (single
/// commits held a 200-player table's messages for up to 262 ms in the benchmark; docs/performance.md,
/// "Checkpoints beside the writer"), and on slow storage such as an SD card syncing the database file can be slower
/// still. So the writer's own checkpoints are off, and one runs here after every `every`
/// transactions, and after saves pause for `pause` once the log holds `pauseMinimum` of them. A
/// passive checkpoint takes no lock the writer needs; one that copies the whole log with no save
/// coming in meanwhile lets the next transaction start the log again from its beginning, in the
/// space the file already has. A checkpoint while saves go on copies what it finds and leaves the
/// log where it is, so a pause checks what the log holds since it last started again, not what is
/// left to copy: a slow checkpoint that ended just before the pause would otherwise leave the next
/// burst of saves to go on past the last one.
/// Only if saves never pause does the log pass `restartFrames`; then the journal itself copies what
/// is left between two transactions (`committed` returns true), so that the log starts again there.
///
/// Starting the log again costs the transaction that does it a sync of its own (SQLite syncs the
/// log's new header before the first frames behind it), and a checkpoint syncs both files. A quiet
/// box, a living room's single table, saves one command every few seconds: checkpointed at every
/// pause, each of its commands took four syncs, two of them before its messages could go out. The
/// few transactions of a pause are left in the log until more have come.
final class Checkpointer: Sendable {
    /// Transactions between two checkpoints while saves keep coming.
    let every = 32
    /// Saves stopped for this long: what they left in the log is copied.
    let pause: DispatchTimeInterval = .milliseconds(100)
    /// A pause copies the log only once it holds this many transactions not yet copied.
    let pauseMinimum = 16
    /// A log this long (in pages, 16 MB) is started again even if saves never pause.
    let restartFrames = 4_096
    private let connection: DatabaseQueue
    private let queue = DispatchQueue(label: "tripto.checkpoint", qos: .utility)

    private struct State {
        /// Transactions since the last checkpoint began.
        var commits = 0
        /// Every transaction so far, to tell a pause.
        var total = 0
        /// When the last transaction was committed.
        var last = DispatchTime(uptimeNanoseconds: 0)
        var running = false
        /// A timer is out to see whether saves have paused (one at a time, not one per save).
        var watching = false
        /// Timers set so far, to tell a pause.
        var timers = 0
        /// The last checkpoint found the log too long: the journal copies the rest.
        var tailDue = false
        /// Transactions that a finished checkpoint copied in full with no save coming in
        /// meanwhile: the next transaction starts the log again.
        var settled = 0
        /// Checkpoints run so far (tests).
        var checkpoints = 0
    }

    private let state = Mutex(State())

    /// Opens a connection of its own to the database at `path` (in WAL mode already) and turns
    /// off the automatic checkpoints of `writer`.
    init(path: String, writer: any DatabaseWriter) throws {
        var configuration = Configuration()
        configuration.busyMode = .timeout(5)
        connection = try DatabaseQueue(path: path, configuration: configuration)
        // A checkpoint syncs the database file before the log may start again over what it copied.
        try connection.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
        try writer.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_autocheckpoint = 0") }
    }

    /// The journal committed a transaction; `idle` when it has nothing more waiting. True when the
    /// journal should copy the rest of the log itself now, before its next transaction.
    func committed(idle: Bool) -> Bool {
        let (start, arm, total, tail) = state.withLock { state -> (Bool, Bool, Int, Bool) in
            state.commits += 1
            state.total += 1
            state.last = .now()
            defer { state.tailDue = false }
            if state.commits >= every, !state.running {
                state.commits = 0
                state.running = true
                return (true, false, state.total, state.tailDue)
            }
            let arm = idle && !state.watching
            if arm { state.watching = true }
            return (false, arm, state.total, state.tailDue)
        }
        if start {
            queue.async { self.checkpoint(covering: total) }
        } else if arm {
            watch(after: total, at: .now() + pause)
        }
        return tail
    }

    /// At `deadline`, sees whether any save came after transaction `total`. If none did, copies
    /// what the log holds, once it holds `pauseMinimum` transactions since it last started again and
    /// no checkpoint is running; if one did, watches again until `pause` after the newest, or for
    /// another `pause` while a checkpoint copies what came before it.
    /// So a checkpoint comes `pause` after the last save, with one timer at a time.
    private func watch(after total: Int, at deadline: DispatchTime) {
        state.withLock { $0.timers += 1 }
        queue.asyncAfter(deadline: deadline) {
            let (due, next) = self.state.withLock { state -> (Bool, (Int, DispatchTime)?) in
                if state.total != total { return (false, (state.total, state.last + self.pause)) }
                if state.running && state.commits > 0 { return (false, (state.total, .now() + self.pause)) }
                state.watching = false
                guard !state.running, state.total - state.settled >= self.pauseMinimum else { return (false, nil) }
                state.commits = 0
                state.running = true
                return (true, nil)
            }
            if let (newest, deadline) = next {
                self.watch(after: newest, at: deadline)
            } else if due {
                self.checkpoint(covering: total)
            }
        }
    }

    /// On the queue: a passive checkpoint of the log as it is after transaction `total`.
    private func checkpoint(covering total: Int) {
        // A failed checkpoint loses nothing: the log keeps every commit, and the next one copies it.
        let log = try? connection.writeWithoutTransaction { db in try db.checkpoint(.passive) }
        state.withLock { state in
            state.running = false
            state.checkpoints += 1
            guard let log else { return }
            if log.walFrameCount >= restartFrames { state.tailDue = true }
            if log.checkpointedFrameCount == log.walFrameCount, state.total == total { state.settled = total }
        }
    }

    /// How many transactions a checkpoint has copied in full with no save coming in meanwhile
    /// (tests): the log starts again at the next one.
    var settledTransactions: Int { state.withLock { $0.settled } }

    /// How many checkpoints have run (tests).
    var checkpoints: Int { state.withLock { $0.checkpoints } }

    /// How many timers have been set to tell a pause (tests).
    var pauseTimers: Int { state.withLock { $0.timers } }
}
