import Foundation
import GRDB
import Synchronization

/// Group commit for the command log. Every write that arrives while a transaction is being made
/// durable goes into the next one, so a burst of commands from many sessions costs one fsync rather
/// than one each; and the waiting happens on the journal's own queue, never on one of the few
/// threads that every socket and session room needs. A write's caller resumes only once its
/// transaction is on disk: nothing is sent before it is saved, as before.
final class Journal: Sendable {
    private struct Entry: Sendable {
        var session: SessionRecord?
        var write: BoxDatabase.Write
        var done: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var waiting: [Entry] = []
        var flushing = false
    }

    private let writer: any DatabaseWriter
    private let queue = DispatchQueue(label: "tripto.journal")
    private let state = Mutex(State())

    init(writer: any DatabaseWriter) { self.writer = writer }

    /// Saves one command's changes (and the session row, for a session's first command).
    func save(_ write: BoxDatabase.Write, creating session: SessionRecord? = nil) async throws {
        try await withCheckedThrowingContinuation { (done: CheckedContinuation<Void, any Error>) in
            let start = state.withLock { state in
                state.waiting.append(Entry(session: session, write: write, done: done))
                defer { state.flushing = true }
                return !state.flushing
            }
            if start { queue.async { self.flush() } }
        }
    }

    private func flush() {
        while true {
            let batch = state.withLock { state in
                let batch = state.waiting
                state.waiting = []
                if batch.isEmpty { state.flushing = false }
                return batch
            }
            guard !batch.isEmpty else { return }
            for (entry, result) in zip(batch, commit(batch)) { entry.done.resume(with: result) }
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
}
