import CTriptoSystem
import Foundation
import GRDB
import Synchronization

/// Group commit for the command log. Every write that arrives while a transaction is being made
/// durable goes into the next one, so a burst of commands from many sessions costs one fsync rather
/// than one each; and the waiting happens on the journal's own thread, never on one of the few
/// threads that every socket and session room needs. Writes are saved, and reported, in the order
/// they were submitted.
///
/// A room's messages wait for the saves before them, and so for this thread, which asks the
/// scheduler for a short time slice: on a box whose event loops keep both cores busy, it then runs
/// as soon as a save comes in or its sync returns, rather than after a loop's turn (docs/performance.md,
/// "Short time slice for the journal's thread"). It uses little CPU, so its share stays small.
///
/// A session's commands must be saved without a gap: a command whose `seq` does not follow the
/// last one saved for its session fails. A room submits its next command before the previous one
/// is on disk; if that one fails, everything the room submitted after it fails too, and the room
/// goes back to what is on disk.
final class Journal: Sendable {
    typealias Completion = @Sendable (Result<Void, any Error>) -> Void

    struct OutOfSequence: Error, CustomStringConvertible {
        var sessionId: String
        var seq: Int
        var last: Int
        var description: String {
            "command \(seq) of session \(sessionId) does not follow the last one saved (\(last))"
        }
    }

    private struct Entry: Sendable {
        var session: SessionRecord?
        var write: BoxDatabase.Write
        var done: Completion
    }

    private struct State {
        var waiting: [Entry] = []
        /// The journal itself while its thread has writes to save (it is flushing): writes handed in
        /// are saved, and their callers told, even if everyone else lets go of the journal meanwhile.
        var flushing: Journal?
    }

    private let writer: any DatabaseWriter
    /// Keeps the write-ahead log short, away from the commits (none for a database in memory).
    let checkpointer: Checkpointer?
    private let state = Mutex(State())
    /// Wakes the journal's thread: signalled when writes arrive and it is not flushing, and when the
    /// journal goes away.
    private let wake = DispatchSemaphore(value: 0)
    /// The time slice the thread asks for: the shortest the kernel gives.
    static let slice: UInt64 = 100_000

    init(writer: any DatabaseWriter, checkpointer: Checkpointer?) {
        self.writer = writer
        self.checkpointer = checkpointer
        // The journal is held only while writes wait (`State.flushing`), so it can go away; then
        // `deinit` wakes the thread, which ends. A failed request for the slice leaves the thread
        // at the kernel's default one.
        let worker = Thread { [weak self, wake] in
            tripto_name_thread("tripto.journal")
            _ = tripto_request_short_slice(Self.slice)
            while true {
                wake.wait()
                guard let journal = self else { return }
                journal.flush()
            }
        }
        worker.start()
    }

    deinit { wake.signal() }

    /// Queues one command's changes (and the session row, for a session's first command);
    /// `done` is called on the journal's thread once they are on disk, or could not be saved.
    func submit(_ write: BoxDatabase.Write, creating session: SessionRecord? = nil, done: @escaping Completion) {
        let start = state.withLock { state in
            state.waiting.append(Entry(session: session, write: write, done: done))
            guard state.flushing == nil else { return false }
            state.flushing = self
            return true
        }
        if start { wake.signal() }
    }

    private func flush() {
        while true {
            // Once nothing waits, the journal is no longer kept for it; it is let go of here, outside
            // the lock (the thread holds it until `flush` returns).
            let (batch, _) = state.withLock { state -> ([Entry], Journal?) in
                let batch = state.waiting
                state.waiting = []
                guard batch.isEmpty else { return (batch, nil) }
                defer { state.flushing = nil }
                return (batch, state.flushing)
            }
            guard !batch.isEmpty else { return }
            for (entry, result) in zip(batch, commit(batch)) { entry.done(result) }
            if checkpointer?.committed(idle: state.withLock { $0.waiting.isEmpty }) == true {
                // Saves never paused and the log passed 16 MB: what is left of it is copied now, with
                // no save coming in meanwhile, so that the next transaction starts it again.
                _ = try? writer.writeWithoutTransaction { db in try db.checkpoint(.passive) }
            }
        }
    }

    /// One transaction for the batch; each write in its own savepoint, so one that breaks a
    /// constraint fails alone while the others are kept.
    private func commit(_ batch: [Entry]) -> [Result<Void, any Error>] {
        var results = [Result<Void, any Error>](repeating: .success(()), count: batch.count)
        do {
            try writer.write { db in
                for (index, entry) in batch.enumerated() {
                    do {
                        try db.inSavepoint {
                            if let session = entry.session { try session.insert(db) }
                            try Self.checkSequence(entry.write.command, in: db)
                            try BoxDatabase.apply(entry.write, in: db)
                            return .commit
                        }
                    } catch {
                        results[index] = .failure(error)
                    }
                }
            }
        } catch {
            // The transaction itself failed (a full disk, say): nothing in it was saved.
            return batch.map { _ in .failure(error) }
        }
        return results
    }

    private static func checkSequence(_ command: CommandRecord, in db: Database) throws {
        let last =
            try Int.fetchOne(
                db.cachedStatement(sql: "SELECT MAX(seq) FROM command WHERE sessionId = ?"),
                arguments: [command.sessionId]) ?? 0
        guard command.seq == last + 1 else {
            throw OutOfSequence(sessionId: command.sessionId, seq: command.seq, last: last)
        }
    }
}
