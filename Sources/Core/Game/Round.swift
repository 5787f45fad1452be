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
    /// Players whose brake on this clue ran out unanswered: they may not pull again until the next
    /// clue, so one player cannot hold a clue in brake-length blocks.
    var lapsedBrakes: Set<ParticipantID> = []
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

public struct BrakeState: Codable, Sendable, Equatable {
    public let ownerId: ParticipantID
    public let levelPoints: Int
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
