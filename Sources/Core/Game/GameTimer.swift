/// A server-side deadline. Timers are data: the game says which fires next (`Game.nextDeadline`) and the
/// box sends `Command.timerFired` when it does. A held timer is frozen and keeps its remaining time.
public struct GameTimer: Codable, Sendable, Equatable {
    public enum Purpose: String, Codable, Sendable {
        case intro, clue, brakeAnswer, followup, followupResults, reveal, scoreboard, finale
    }

    /// Why a timer is frozen: the host paused the game, or a brake holds the clue's own timer.
    public enum Hold: String, Codable, Sendable {
        case hostPause, brake
    }

    public let id: String
    public let purpose: Purpose
    public let phase: Phase
    public private(set) var startAt: ServerTime
    public let durationMs: Int64
    public private(set) var holds: Set<Hold> = []
    public private(set) var heldSince: ServerTime?

    init(id: String, purpose: Purpose, phase: Phase, startAt: ServerTime, durationMs: Int64) {
        self.id = id
        self.purpose = purpose
        self.phase = phase
        self.startAt = startAt
        self.durationMs = durationMs
    }

    /// When it fires, or nil while held.
    public var deadline: ServerTime? { holds.isEmpty ? startAt + durationMs : nil }

    public func remaining(at now: ServerTime) -> Int64 {
        let reference = heldSince ?? now
        return max(0, startAt + durationMs - reference)
    }

    mutating func hold(_ reason: Hold, at now: ServerTime) {
        if holds.isEmpty { heldSince = now }
        holds.insert(reason)
    }

    /// Lifts one hold; when none is left the start moves on by the time spent held, so the remaining
    /// time is what it was when the first hold began. Returns whether the timer runs again.
    @discardableResult
    mutating func release(_ reason: Hold, at now: ServerTime) -> Bool {
        guard holds.remove(reason) != nil, holds.isEmpty, let heldSince else { return false }
        startAt += max(0, now - heldSince)
        self.heldSince = nil
        return true
    }

    var view: TimerView {
        TimerView(timerId: id, startAtServerMs: startAt, durationMs: durationMs, phase: phase)
    }

    func view(at now: ServerTime) -> TimerView {
        var view = self.view
        if heldSince != nil { view.remainingMs = remaining(at: now) }
        return view
    }
}
