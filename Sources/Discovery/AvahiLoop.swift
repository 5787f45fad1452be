import CAvahi

/// Avahi's own event-loop thread. Avahi runs every callback on it with its lock held; anything called
/// from another thread must hold the same lock (`locked`).
final class AvahiLoop: @unchecked Sendable {
    private let poll: OpaquePointer
    private var running = false

    init?() {
        guard let poll = avahi_threaded_poll_new() else { return nil }
        self.poll = poll
    }

    var api: UnsafePointer<AvahiPoll> { avahi_threaded_poll_get(poll) }

    func start() -> Bool {
        running = avahi_threaded_poll_start(poll) == 0
        return running
    }

    func locked<Value>(_ body: () -> Value) -> Value {
        avahi_threaded_poll_lock(poll)
        defer { avahi_threaded_poll_unlock(poll) }
        return body()
    }

    /// Stops the thread. After this no callback runs, and the caller may free Avahi objects without the lock.
    func stop() {
        if running { avahi_threaded_poll_stop(poll) }
        running = false
    }

    deinit {
        stop()
        avahi_threaded_poll_free(poll)
    }
}

/// Avahi's message for an error code.
func avahiError(_ code: Int32) -> String {
    avahi_strerror(code).map { String(cString: $0) } ?? "error \(code)"
}
