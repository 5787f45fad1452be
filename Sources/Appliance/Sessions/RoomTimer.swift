import Core

/// A room's one timer, as decisions: which of the game's deadlines is armed, and how long to wait
/// before trying again after a failure. The room owns the task that sleeps; this says when.
struct RoomTimer {
    /// What the room does with its sleeping task.
    enum Plan: Equatable {
        /// The armed deadline is still the game's next one.
        case keep
        /// Nothing is due: the task is cancelled.
        case cancel
        /// The task is replaced by one that fires `deadline` at `at` (the room's time).
        case arm(Deadline, at: Int64)
    }

    private(set) var armed: Deadline?
    private var retryMs: Int64 = 0
    private var lastFailureAt: Int64?

    /// After a failed save or a refused timer, the timer fires again after this long at first,
    /// doubling while failures follow within `failureWindowMs`, up to `longestRetryMs`.
    static let firstRetryMs: Int64 = 1_000
    static let longestRetryMs: Int64 = 30_000
    static let failureWindowMs: Int64 = 60_000

    /// The game's next deadline is `next`; `notBefore` holds it back (after a failure).
    mutating func plan(next: Deadline?, notBefore: Int64? = nil) -> Plan {
        guard next != armed || notBefore != nil else { return .keep }
        armed = next
        guard let next else { return .cancel }
        return .arm(next, at: max(next.at, notBefore ?? next.at))
    }

    /// `deadline`'s task woke: true if it is still the armed one, which it then no longer is.
    mutating func fires(_ deadline: Deadline) -> Bool {
        guard armed == deadline else { return false }
        armed = nil
        return true
    }

    /// The session ended: nothing stays armed.
    mutating func disarm() { armed = nil }

    /// A save failed or the timer was refused at `now`: the time before which it is not fired
    /// again, so that it does not fire at once and for ever.
    mutating func backOff(now: Int64) -> Int64 {
        if let lastFailureAt, now - lastFailureAt < Self.failureWindowMs {
            retryMs = min(Self.longestRetryMs, max(Self.firstRetryMs, retryMs * 2))
        } else {
            retryMs = Self.firstRetryMs
        }
        lastFailureAt = now
        return now + retryMs
    }
}
