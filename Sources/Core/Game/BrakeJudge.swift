/// What the box knows of one connection's clock and link, from its echoes of `CLOCK_PROBE`
/// (docs/protocol.md, "The fair brake").
///
/// Each echo gives a round trip and an offset sample: the client read its clock somewhere between
/// the probe leaving and the echo arriving, taken as the middle. A sample is off by half the
/// difference between its two one-way delays, so the samples with the lowest round trips (the
/// least queueing, the least room for asymmetry) are the ones to believe: the estimate is the
/// offset of the lowest round trip among the recent samples, as NTP's clock filter does. Keeping
/// only recent samples follows a clock that drifts and a link that changes.
public struct ClockEstimate: Sendable, Equatable {
    public struct Sample: Sendable, Equatable {
        public let sentAt: ServerTime
        public let receivedAt: ServerTime
        public let clientTimeMs: Int64

        public init(sentAt: ServerTime, receivedAt: ServerTime, clientTimeMs: Int64) {
            self.sentAt = sentAt
            self.receivedAt = receivedAt
            self.clientTimeMs = clientTimeMs
        }

        public var roundTripMs: Int64 { receivedAt - sentAt }
        /// The client's clock minus the box's, were both trips equally long; nil for a client time
        /// so far off that the difference does not fit (a hostile echo).
        public var offsetMs: Int64? {
            let (offset, overflow) = clientTimeMs.subtractingReportingOverflow(sentAt / 2 + receivedAt / 2)
            return overflow ? nil : offset
        }
    }

    /// Samples kept: at one probe every 2 s, the last 32 seconds.
    public static let kept = 16
    /// Echoes needed before pulls are judged by their press time.
    public static let usableAfter = 3

    public private(set) var samples: [Sample] = []

    public init() {}

    public mutating func add(_ sample: Sample) {
        guard sample.roundTripMs >= 0, sample.offsetMs != nil else { return }
        samples.append(sample)
        if samples.count > Self.kept { samples.removeFirst(samples.count - Self.kept) }
    }

    public var isUsable: Bool { samples.count >= Self.usableAfter }

    private var best: Sample? { samples.min { $0.roundTripMs < $1.roundTripMs } }

    /// The client's clock minus the box's.
    public var offsetMs: Int64? { isUsable ? best?.offsetMs ?? nil : nil }

    /// The one-way delay when the link is quickest: half the lowest round trip.
    public var oneWayMs: Int64 { (best?.roundTripMs ?? 0) / 2 }

    /// How much longer than `oneWayMs` one way commonly takes: half the spread of the recent round
    /// trips from the lowest to the upper quartile. Stalled echoes (a busy phone, a busy box, or a
    /// client that holds its echoes back to widen its own bound) do not widen it until they are
    /// more than a quarter of the samples.
    public var jitterMs: Int64 {
        let trips = samples.map(\.roundTripMs).sorted()
        guard trips.count >= 2 else { return 0 }
        return (trips[trips.count * 3 / 4] - trips[0] + 1) / 2
    }

    /// What a message typically takes to reach the client: the quickest trip plus half the jitter.
    /// The level a pull's screen showed is looked up this long before its judged time.
    public var typicalOneWayMs: Int64 { oneWayMs + jitterMs / 2 }

    /// The median round trip, for people to read.
    public var medianRoundTripMs: Int64? {
        let trips = samples.map(\.roundTripMs).sorted()
        return trips.isEmpty ? nil : trips[trips.count / 2]
    }
}

/// When a pull was pressed, on the box's clock, and what that allows.
public struct PullTiming: Codable, Sendable, Equatable {
    /// When the pull is judged pressed.
    public let judgedAt: ServerTime
    /// How long the connection's messages take to reach it: the level it showed at `judgedAt` is
    /// the one the box showed this long before.
    public let screenDelayMs: Int64
    /// The most its messages take (`BrakeJudge.lookbackMs`): a clue the box showed this long before
    /// `judgedAt` may still have been on its screen. 0 for a pull judged at its arrival.
    public let lookbackMs: Int64
    /// The least its messages take (`ClockEstimate.oneWayMs`): a clue the box showed this long
    /// before `judgedAt` may already have been on its screen.
    public let fastestMs: Int64
    /// How much earlier than its arrival a pull from any player in the session could still be judged:
    /// how long the box waits for a pull in flight (`BrakeJudge.lookbackMs`, the most of any player's).
    public let windowMs: Int64
    /// The claimed press time was earlier than the connection allows, and was clamped.
    public let clamped: Bool

    public init(
        judgedAt: ServerTime, screenDelayMs: Int64, lookbackMs: Int64 = 0, fastestMs: Int64? = nil, windowMs: Int64,
        clamped: Bool
    ) {
        self.judgedAt = judgedAt
        self.screenDelayMs = screenDelayMs
        self.lookbackMs = lookbackMs
        self.fastestMs = fastestMs ?? screenDelayMs
        self.windowMs = windowMs
        self.clamped = clamped
    }
}

/// The contract's rules for judging a pull by when it was pressed (CONTRACT 4.1).
public enum BrakeJudge {
    /// No pull is judged more than this before it arrived, and no level waits longer for pulls in flight.
    public static let maxLookbackMs: Int64 = 150
    /// Judged times this close go to the earlier arrival.
    public static let tieMs: Int64 = 5
    /// Added to a link's measured jitter: the margin for a trip a little slower than any measured.
    public static let marginMs: Int64 = 5

    /// How much earlier than its arrival a pull on this link may be judged: its one-way delay and
    /// jitter plus a margin, at most `maxLookbackMs`; 0 without a usable estimate.
    public static func lookbackMs(_ estimate: ClockEstimate) -> Int64 {
        guard estimate.isUsable else { return 0 }
        return min(maxLookbackMs, estimate.oneWayMs + estimate.jitterMs + marginMs)
    }

    /// The judged press time of a pull that arrived at `arrivedAt` saying it was pressed at
    /// `atClientMs` on the client's clock. Never earlier than the link allows, never after its arrival.
    public static func judge(
        arrivedAt: ServerTime, atClientMs: Int64?, estimate: ClockEstimate, windowMs: Int64
    ) -> PullTiming {
        guard let atClientMs, let offset = estimate.offsetMs else {
            return PullTiming(judgedAt: arrivedAt, screenDelayMs: 0, windowMs: windowMs, clamped: false)
        }
        let lookback = lookbackMs(estimate)
        let earliest = arrivedAt - lookback
        // A claim too far off to subtract is far off either way: the bound it is clamped to.
        let (difference, overflow) = atClientMs.subtractingReportingOverflow(offset)
        let claimed = overflow ? (atClientMs < 0 ? Int64.min : Int64.max) : difference
        return PullTiming(
            judgedAt: min(arrivedAt, max(earliest, claimed)), screenDelayMs: estimate.typicalOneWayMs,
            lookbackMs: lookback, fastestMs: estimate.oneWayMs, windowMs: windowMs, clamped: claimed < earliest)
    }
}
