/// The destination being played and everything that happened in it.
public struct RoundState: Codable, Sendable, Equatable {
    /// 0-based position in the game's plan.
    public let index: Int
    public let destination: Destination
    /// How many followups this round asks: the setting, capped by what the destination has.
    public let followupCount: Int
    /// 0-based index of the clue shown (0 is the 10-point clue); nil during the intro.
    public internal(set) var levelIndex: Int?
    public internal(set) var revealed = false
    public internal(set) var locks: [LockedAnswer] = []
    /// Players whose brake ran out unanswered, with the clue (`levelIndex`) it was on: they may not
    /// pull on that clue again, so one player cannot hold a clue in brake-length blocks.
    var lapsedBrakes: [ParticipantID: Int] = [:]
    /// What the box showed when during the clues, oldest first: the level a pull's screen showed at
    /// its judged time is looked up here (`Game.level(shownAt:)`).
    var clueLog: [ClueSpan] = []
    public internal(set) var results: [DestinationResult]?
    public internal(set) var followup: FollowupState?

    var levelPoints: Int? { levelIndex.map { destination.clues[$0].points } }

    func hasLocked(_ player: ParticipantID) -> Bool { locks.contains { $0.playerId == player } }
}

public struct LockedAnswer: Codable, Sendable, Equatable {
    public let playerId: ParticipantID
    public let levelPoints: Int
    public let answerText: String
    public let lockedAt: ServerTime
}

/// From `at` on, the box showed the clue `levelIndex`, open for pulls or closed by a brake or a pause.
struct ClueSpan: Codable, Sendable, Equatable {
    enum State: String, Codable, Sendable { case open, brake, paused }
    let at: ServerTime
    let levelIndex: Int
    let state: State
}

/// The pulls of one clue that wait for the arbitration window to close (`Game.decideBrake`).
public struct Arbitration: Codable, Sendable, Equatable {
    struct Pull: Codable, Sendable, Equatable {
        let playerId: ParticipantID
        let arrivedAt: ServerTime
        let judgedAt: ServerTime
        let levelIndex: Int
    }
    /// The timer id the box fires the decision with (`Command.timerFired`).
    public static let timerId = "brake-arbitration"
    let firstArrivalAt: ServerTime
    /// When no pull still in flight could be judged earlier than the best so far.
    public internal(set) var decideAt: ServerTime
    var windowMs: Int64
    var pulls: [Pull]

    /// The decision comes once no pull still in flight could be judged earlier than the best so
    /// far (its judged time plus the longest lookback of any link), and no later than the
    /// contract's bound after the first arrival.
    mutating func scheduleDecision(now: ServerTime) {
        let best = pulls.map(\.judgedAt).min() ?? now
        decideAt = min(firstArrivalAt + BrakeJudge.maxLookbackMs, max(now, best + windowMs))
    }

    /// The winner: the earliest judged time; judged times within `BrakeJudge.tieMs` of it go to the
    /// earliest arrival among them.
    var winner: Pull? {
        guard let earliest = pulls.map(\.judgedAt).min() else { return nil }
        return pulls.filter { $0.judgedAt - earliest <= BrakeJudge.tieMs }.min { $0.arrivedAt < $1.arrivedAt }
    }
}

public struct BrakeState: Codable, Sendable, Equatable {
    public let ownerId: ParticipantID
    public let levelPoints: Int
    /// The clue the brake counts on (0 is the 10-point clue): after its answer the game goes on
    /// with the clue after it, which may be the one the room sees already.
    public let levelIndex: Int
    public let timerId: String
}

public struct FollowupState: Codable, Sendable, Equatable {
    /// 1-based.
    public let index: Int
    public let total: Int
    public let question: Followup
    public let timer: TimerView
    public internal(set) var answers: [ParticipantID: String] = [:]
    public internal(set) var isOpen = true
    public internal(set) var results: FollowupResults?
}
