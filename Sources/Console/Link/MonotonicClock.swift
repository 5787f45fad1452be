#if canImport(Glibc)
    import Glibc
#endif

/// The console's own clock for the fair brake (CONTRACT 4.1): milliseconds that only go forward,
/// whatever happens to the wall clock. `CLOCK_ECHO.clientTimeMs` and `BRAKE_PULL.atClientMs` are
/// both read from it, so the box's offset estimate (from the echoes) turns a pull's stamp into the
/// moment it was pressed, on the box's clock.
struct MonotonicClock: Sendable {
    private let read: @Sendable () -> Int64

    /// A clock that reads `read`: tests give one that says what they want.
    init(_ read: @escaping @Sendable () -> Int64) { self.read = read }

    /// CLOCK_MONOTONIC: milliseconds since some moment (the machine's boot), never stepped.
    static let system = MonotonicClock {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Int64(time.tv_sec) * 1000 + Int64(time.tv_nsec) / 1_000_000
    }

    func now() -> Int64 { read() }
}
