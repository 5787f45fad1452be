import Crypto
import Foundation

/// Random identifiers and tokens, and the one-way hash under which tokens are stored.
enum Secrets {
    private static let base32 = Array("abcdefghijklmnopqrstuvwxyz234567")

    /// 16 characters of lowercase base32 (80 random bits).
    static func sessionId() -> String {
        String(randomBytes(16).map { base32[Int($0 & 31)] })
    }

    /// An opaque participant id.
    static func participantId() -> String { "p_" + token(bytes: 9) }

    /// `bytes` random bytes (from the system's CSPRNG) as URL-safe base64 without padding.
    static func token(bytes: Int = 24) -> String { base64URL(randomBytes(bytes)) }

    private static let base64URLDigits = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// URL-safe base64 (RFC 4648 §5) without padding. (Foundation's base64 followed by three
    /// `replacingOccurrences` was nearly half of what the room did for a join: docs/performance.md,
    /// "Tokens made in bulk".)
    static func base64URL(_ bytes: [UInt8]) -> String {
        var digits: [UInt8] = []
        digits.reserveCapacity((bytes.count * 4 + 2) / 3)
        var index = 0
        while index < bytes.count {
            let count = min(3, bytes.count - index)
            var group = UInt32(bytes[index]) << 16
            if count > 1 { group |= UInt32(bytes[index + 1]) << 8 }
            if count > 2 { group |= UInt32(bytes[index + 2]) }
            for digit in 0...count { digits.append(base64URLDigits[Int(group >> (18 - 6 * digit) & 63)]) }
            index += 3
        }
        return String(decoding: digits, as: UTF8.self)
    }

    /// From the system's CSPRNG, eight bytes per call to it (not one call per byte).
    private static func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count + 7)
        while bytes.count < count { withUnsafeBytes(of: generator.next()) { bytes += $0 } }
        return Array(bytes.prefix(count))
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// What the database keeps of a token: its SHA-256, hex. (Voice clips use it as a fingerprint too.)
    static func hash(_ token: String) -> String {
        var hex: [UInt8] = []
        hex.reserveCapacity(64)
        for byte in SHA256.hash(data: Data(token.utf8)) {
            hex.append(hexDigits[Int(byte >> 4)])
            hex.append(hexDigits[Int(byte & 15)])
        }
        return String(decoding: hex, as: UTF8.self)
    }

    /// Compares without an early exit, so timing does not tell how much of a guess was right.
    static func equal(_ lhs: String, _ rhs: String) -> Bool {
        let a = Array(lhs.utf8)
        let b = Array(rhs.utf8)
        guard a.count == b.count else { return false }
        return zip(a, b).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }
}

/// The box's clock: the one place that reads the time, in the wire's epoch milliseconds.
///
/// The wall clock is read once; from then on the box's time moves with the monotonic clock, so it
/// never jumps when the system's clock is set. A board without a real-time clock boots with a
/// stale date and may be set hours ahead once it finds a time server, in the middle of an
/// evening: deadlines already given to the phones keep their meaning, and a session is not
/// taken for idle. The monotonic clock runs at the rate the wall clock is slewed to, so the
/// two differ only by the steps the wall clock took since the box started.
enum ServerClock {
    private static let anchor = (epochMs: Date().timeIntervalSince1970 * 1000, instant: ContinuousClock.now)

    static func now() -> Int64 { milliseconds(since: anchor.epochMs, at: anchor.instant, now: .now) }

    /// `epochMs` read at `instant`, carried forward to `now`.
    static func milliseconds(
        since epochMs: Double, at instant: ContinuousClock.Instant, now: ContinuousClock.Instant
    ) -> Int64 {
        let (seconds, attoseconds) = (now - instant).components
        return Int64((epochMs + Double(seconds) * 1_000 + Double(attoseconds) / 1e15).rounded())
    }
}
