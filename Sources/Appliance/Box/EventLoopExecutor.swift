import CTriptoSystem
import NIOCore
import NIOPosix

/// Runs Swift concurrency's jobs (REST handlers, and the tasks that rooms, the journal and the
/// services start) on the box's NIO event loops instead of the runtime's own thread pool. Each
/// session room runs on one of the loops, its actor's executor (`SessionRoom.loop`).
///
/// Without it every message crosses threads twice before its room sees it: the event loop reads
/// it, and a pool thread runs the socket's task and the room. On a small box the threads of both
/// groups share the same cores, so each crossing waits for a wake-up. With the jobs on the event
/// loops, a job started from an event loop stays on it. docs/performance.md ("Tasks on the event
/// loops") has the figures; `TRIPTO_DISABLE=loop-executor` runs the box without it.
///
/// It writes the runtime's `swift_task_enqueueGlobal_hook`, as SwiftNIO's own takeover
/// (`NIOSingletons`) does; that finds the hook with `dlsym`, which a release build, linked
/// statically, does not export. What this assumes, checked for each toolchain it is built with:
/// - the hook is a pointer-sized global the runtime reads on every enqueue onto the global
///   executor, with the signature `Hook` below (the runtime's ConcurrencyHooks.def);
/// - it is written before any job is enqueued through it, and never again;
/// - an `ExecutorJob` made from the `UnownedJob` may be run by any serial executor.
/// On a toolchain it has not been checked with, it is not installed: the box then runs as with
/// the switch off, and says so in its log. To check a new toolchain: read the runtime's
/// ConcurrencyHooks.def for the hook's signature, widen the `#if compiler` gate, and compare
/// `make bench` with and without the switch (docs/performance.md).
enum EventLoopExecutor {
    private typealias Original = @convention(thin) (UnownedJob) -> Void
    private typealias Hook = @convention(thin) (UnownedJob, Original) -> Void

    enum Installation: Equatable, Sendable {
        case installed
        /// `TRIPTO_DISABLE=loop-executor`.
        case disabled
        /// Something else (a test harness, another library) installed a hook first.
        case hookTaken
        /// Built with a compiler whose runtime this was not checked against.
        case unverifiedCompiler
    }

    /// What installing did, done once, the first time this is read: first thing in `main`, before
    /// any task starts (`Tripto.main`); `tripto serve` logs it.
    static let installation = takeOver()

    private static func takeOver() -> Installation {
        guard tripto_disabled("loop-executor") == 0 else { return .disabled }
        #if compiler(>=6.2) && compiler(<6.4)
            guard let slot = tripto_enqueue_global_hook(), slot.pointee == nil else { return .hookTaken }
            let hook: Hook = { job, _ in
                // The current loop when called on one (a task started from an event loop stays there),
                // otherwise the next one in turn.
                MultiThreadedEventLoopGroup.singleton.any().executor.enqueue(ExecutorJob(job))
            }
            precondition(MemoryLayout<Hook>.size == MemoryLayout<UnsafeMutableRawPointer>.size)
            slot.pointee = unsafeBitCast(hook, to: UnsafeMutableRawPointer.self)
            return .installed
        #else
            return .unverifiedCompiler
        #endif
    }
}
