import Foundation

/// The machine's wall clock in milliseconds with sub-millisecond precision: the same clock the
/// server stamps `serverTimeMs` with, so receipt minus stamp is the time a message spent on its way.
enum WallClock {
    static func nowMs() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Double(spec.tv_sec) * 1_000 + Double(spec.tv_nsec) / 1_000_000
    }
}
