import Dispatch
import GRDB
import Synchronization

/// Copies the write-ahead log back into the database file, on a connection and a thread of its
/// own, so that no save waits for it.
///
/// Left to itself, SQLite does this inside the commit that takes the log past 1,000 pages, on the
/// writer's connection: that commit then writes the pages into the database file and syncs it, and
/// every save queued in the journal, of every session, waits. Syncs are not always quick (single
/// commits held a 200-player table's messages for up to 262 ms in the benchmark; docs/bench.md,
/// "Eighth round"), and on slow storage such as an SD card syncing the database file can be slower
/// still. So the writer's own checkpoints are off, and one runs here after every `every`
/// transactions, and after saves pause for `pause`. A passive checkpoint takes no lock the writer
/// needs; one that finds no save came in meanwhile lets the next transaction start the log again
/// from its beginning, in the space the file already has. Only if saves never pause, and the log
/// passes `restartFrames`, does a checkpoint make the writer wait while it copies what is left.
final class Checkpointer: Sendable {
    /// Transactions between two checkpoints while saves keep coming.
    let every: Int
    /// Saves stopped for this long: what they left in the log is copied.
    let pause: DispatchTimeInterval = .milliseconds(100)
    /// A log this long (in pages, 16 MB) is started again even if saves never pause.
    let restartFrames = 4_096
    private let connection: DatabaseQueue
    private let queue = DispatchQueue(label: "tripto.checkpoint", qos: .utility)
    /// Transactions since the last checkpoint began, and every transaction so far (to tell a pause).
    private let state = Mutex((commits: 0, running: false, total: 0))

    /// Opens a connection of its own to the database at `path` (in WAL mode already) and turns
    /// off the automatic checkpoints of `writer`.
    init(path: String, writer: any DatabaseWriter, every: Int = 32) throws {
        self.every = every
        var configuration = Configuration()
        configuration.busyMode = .timeout(5)
        connection = try DatabaseQueue(path: path, configuration: configuration)
        try writer.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_autocheckpoint = 0") }
    }

    /// The journal committed a transaction; `idle` when it has nothing more waiting.
    func committed(idle: Bool) {
        let (start, total) = state.withLock { state -> (Bool, Int) in
            state.commits += 1
            state.total += 1
            guard state.commits >= every, !state.running else { return (false, state.total) }
            state.commits = 0
            state.running = true
            return (true, state.total)
        }
        if start {
            queue.async { self.checkpoint() }
        } else if idle {
            queue.asyncAfter(deadline: .now() + pause) {
                // Nothing saved since, nothing copied since, and no checkpoint on its way: one now.
                let due = self.state.withLock { state -> Bool in
                    guard state.total == total, state.commits > 0, !state.running else { return false }
                    state.commits = 0
                    state.running = true
                    return true
                }
                if due { self.checkpoint() }
            }
        }
    }

    /// On the queue.
    private func checkpoint() {
        // A failed checkpoint loses nothing: the log keeps every commit, and the next one copies it.
        try? connection.writeWithoutTransaction { db in
            let log = try db.checkpoint(.passive)
            if log.walFrameCount >= restartFrames { try db.checkpoint(.restart) }
        }
        state.withLock { $0.running = false }
    }

    /// Returns once a checkpoint that is running, if any, is over (tests).
    func idle() async { await withCheckedContinuation { done in queue.async { done.resume() } } }
}
