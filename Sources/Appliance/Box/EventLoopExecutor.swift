import CTaskHooks
import NIOCore
import NIOPosix

/// Runs Swift concurrency's jobs (REST handlers, and the tasks that rooms, the journal and the
/// services start) on the box's NIO event loops instead of the runtime's own thread pool. Each
/// session room runs on one of the loops, its actor's executor (`SessionRoom.loop`).
///
/// Every message used to cross threads twice before its room saw it: the event loop read it, and
/// a pool thread ran the socket's task and the room. On a small box the threads of both groups
/// share the same cores, so each crossing waits for a wake-up. With the jobs on the event loops, a
/// job started from an event loop stays on it. docs/bench.md ("Fifth round") has the figures, and
/// the one case where it costs: a loop that is saturated runs its queued jobs before it reads again.
///
/// SwiftNIO offers the same takeover (`NIOSingletons`), but it finds the runtime's hook with
/// `dlsym`, which a release build, linked statically, does not export.
enum EventLoopExecutor {
    private typealias Original = @convention(thin) (UnownedJob) -> Void
    private typealias Hook = @convention(thin) (UnownedJob, Original) -> Void

    /// Installs the hook; call it first thing in `main`, before any task starts. False if
    /// something else installed one already (then the runtime's pool runs the jobs, as usual).
    @discardableResult
    static func install() -> Bool {
        guard let slot = tripto_enqueue_global_hook(), slot.pointee == nil else { return false }
        let hook: Hook = { job, _ in
            // The current loop when called on one (a task started from an event loop stays there),
            // otherwise the next one in turn.
            MultiThreadedEventLoopGroup.singleton.any().executor.enqueue(ExecutorJob(job))
        }
        precondition(MemoryLayout<Hook>.size == MemoryLayout<UnsafeMutableRawPointer>.size)
        slot.pointee = unsafeBitCast(hook, to: UnsafeMutableRawPointer.self)
        return true
    }
}
