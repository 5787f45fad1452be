import Synchronization

extension SessionRoom {
    /// A command's save, for the callers that answer only once it is on disk.
    final class Save: Sendable {
        private let state = Mutex<
            (result: Result<Void, BoxError>?, waiters: [CheckedContinuation<Result<Void, BoxError>, Never>])
        >((nil, []))

        func finish(_ result: Result<Void, BoxError>) {
            let waiters = state.withLock { state in
                state.result = result
                defer { state.waiters = [] }
                return state.waiters
            }
            for waiter in waiters { waiter.resume(returning: result) }
        }

        /// Returns once the save is done; any number of callers may wait.
        func wait() async throws(BoxError) {
            let result = await withCheckedContinuation { (waiter: CheckedContinuation<Result<Void, BoxError>, Never>) in
                let done = state.withLock { state in
                    if state.result == nil { state.waiters.append(waiter) }
                    return state.result
                }
                if let done { waiter.resume(returning: done) }
            }
            try result.get()
        }
    }
}
