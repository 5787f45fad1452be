import Core

/// A made-up network delay (`bots --lag MS[:JITTER]`): every message, each way, is held back by
/// `ms` ± `jitterMs` milliseconds, drawn anew for each message.
struct Lag: Sendable, Equatable, CustomStringConvertible {
    var ms: Int
    var jitterMs: Int

    init(ms: Int, jitterMs: Int = 0) {
        self.ms = ms
        self.jitterMs = jitterMs
    }

    /// "MS" or "MS:JITTER", whole milliseconds, at most 10 s each; nil for anything else.
    init?(parsing text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let ms = Int(parts[0]), (0...10_000).contains(ms) else { return nil }
        var jitter = 0
        if parts.count == 2 {
            guard let value = Int(parts[1]), (0...10_000).contains(value) else { return nil }
            jitter = value
        }
        self.init(ms: ms, jitterMs: jitter)
    }

    var isZero: Bool { ms == 0 && jitterMs == 0 }

    /// The most a message can be held back.
    var maxMs: Int { ms + jitterMs }

    var description: String { jitterMs == 0 ? "\(ms) ms" : "\(ms)±\(jitterMs) ms" }
}

/// When each message of one direction of one link is let through. A delay is drawn for every
/// message, uniformly in `ms - jitter ... ms + jitter` (never below 0), but a message never
/// overtakes the one before it: a WebSocket runs over TCP, where a late segment holds up the ones
/// behind it. So a message is due at `max(now + delay, the previous one's due time)`.
struct LagSchedule: Sendable {
    let lag: Lag
    private var random: SplitMix64
    private var lastDue: Int64 = .min

    init(_ lag: Lag, seed: UInt64) {
        self.lag = lag
        random = SplitMix64(seed: seed)
    }

    /// One message's own delay, before ordering.
    mutating func delay() -> Int64 {
        let low = max(0, lag.ms - lag.jitterMs)
        let high = lag.ms + lag.jitterMs
        return Int64(Int.random(in: low...high, using: &random))
    }

    /// When a message handed over at `now` goes on (same clock as `now`).
    mutating func due(now: Int64) -> Int64 {
        let due = max(now + delay(), lastDue)
        lastDue = due
        return due
    }
}
