import Foundation
import Synchronization

/// Counts failed join-code lookups per caller: past `limit` misses within `windowMs`, the caller is
/// refused (429) until the window ends. Guessing codes is slow; a typo or two is not punished.
final class MissThrottle: Sendable {
    private struct Window {
        var start: Int64
        var misses: Int
    }

    let limit: Int
    let windowMs: Int64
    private let windows = Mutex<[String: Window]>([:])

    init(limit: Int = 10, windowMs: Int64 = 60_000) {
        self.limit = limit
        self.windowMs = windowMs
    }

    /// nil when `caller` may look a code up; otherwise the whole seconds until its window ends.
    func wait(for caller: String, now: Int64) -> Int? {
        windows.withLock { windows in
            guard let window = windows[caller], now - window.start < windowMs, window.misses >= limit else {
                return nil
            }
            return Int((window.start + windowMs - now + 999) / 1000)
        }
    }

    func recordMiss(_ caller: String, now: Int64) {
        windows.withLock { windows in Self.miss(caller, now: now, windowMs: windowMs, in: &windows) }
    }

    /// A guess checked and counted in one step, so that guesses sent at once cannot all pass before
    /// any is counted: nil when `caller` may guess now (a wrong one, as `isWrong` says, is counted),
    /// otherwise the whole seconds until its window ends.
    func guess(_ caller: String, now: Int64, isWrong: () -> Bool) -> Int? {
        windows.withLock { windows in
            if let window = windows[caller], now - window.start < windowMs, window.misses >= limit {
                return Int((window.start + windowMs - now + 999) / 1000)
            }
            if isWrong() { Self.miss(caller, now: now, windowMs: windowMs, in: &windows) }
            return nil
        }
    }

    private static func miss(_ caller: String, now: Int64, windowMs: Int64, in windows: inout [String: Window]) {
        if windows.count > 10_000 { windows = windows.filter { now - $0.value.start < windowMs } }
        if var window = windows[caller], now - window.start < windowMs {
            window.misses += 1
            windows[caller] = window
        } else {
            windows[caller] = Window(start: now, misses: 1)
        }
    }
}

/// Sessions created per caller: ten at once (a family trying settings, a client's test run), then
/// two a minute. Each is a row, a log and a room
/// for as long as it lives, and is kept for days after it ends: a guest on the venue's network
/// could otherwise create thousands a minute and fill the box's disk. The box itself (loopback:
/// its kiosk, console, load generator) is not counted.
final class CreateThrottle: Sendable {
    private let buckets = Mutex<[String: MessageBudget]>([:])
    let burst: Double
    let perMinute: Double

    init(burst: Double = 10, perMinute: Double = 2) {
        self.burst = burst
        self.perMinute = perMinute
    }

    /// nil when `caller` may create a session now (and it is counted); otherwise the whole seconds
    /// until it may.
    func wait(for caller: String, now: Int64) -> Int? {
        let caller = Self.network(of: caller)
        return buckets.withLock { buckets in
            // Callers that have been quiet long enough to be full again are forgotten.
            if buckets.count > 10_000 { buckets = buckets.filter { !$0.value.isFull(now: now) } }
            var bucket = buckets[caller] ?? MessageBudget(rate: perMinute / 60, burst: burst, now: now)
            defer { buckets[caller] = bucket }
            return bucket.spend(now: now) ? nil : bucket.secondsUntilNext()
        }
    }

    /// Who is counted: an IPv4 address, or an IPv6 address's /64 (one device may use any
    /// address of its network's prefix, and pick a new one for each request).
    static func network(of address: String) -> String {
        var bytes = in6_addr()
        guard address.contains(":"), !address.hasPrefix("::ffff:"), inet_pton(AF_INET6, address, &bytes) == 1 else {
            return address
        }
        let prefix = withUnsafeBytes(of: bytes) { $0.prefix(8).map { String(format: "%02x", $0) }.joined() }
        return prefix + "::/64"
    }
}

/// A token bucket: `rate` per second on average, bursts up to `burst` (a connection's messages, a
/// caller's creates).
struct MessageBudget {
    let rate: Double
    let burst: Double
    private var tokens: Double
    private var last: Int64

    init(rate: Double = 20, burst: Double = 40, now: Int64) {
        self.rate = rate
        self.burst = burst
        tokens = burst
        last = now
    }

    /// Whether it would be back to its whole burst by `now`.
    func isFull(now: Int64) -> Bool { tokens + Double(max(0, now - last)) / 1000 * rate >= burst }

    /// Whole seconds until one more can be spent, as of the last spend.
    func secondsUntilNext() -> Int { tokens >= 1 ? 0 : Int(((1 - tokens) / rate - 1e-6).rounded(.up)) }

    mutating func spend(now: Int64) -> Bool {
        tokens = min(burst, tokens + Double(max(0, now - last)) / 1000 * rate)
        last = now
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }
}
