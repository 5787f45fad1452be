/// Milliseconds since the Unix epoch, as on the wire. Core never reads a clock: callers pass `now`.
public typealias ServerTime = Int64

/// A participant's opaque id (players' ids are the contract's `playerId`).
public typealias ParticipantID = String

public enum Role: String, Codable, Sendable, CaseIterable {
    case host = "HOST"
    case tv = "TV"
    case player = "PLAYER"
}

public enum Phase: String, Codable, Sendable, CaseIterable {
    case lobby = "LOBBY"
    case preparingRound = "PREPARING_ROUND"
    case roundIntro = "ROUND_INTRO"
    case clueLevel = "CLUE_LEVEL"
    case pausedForBrake = "PAUSED_FOR_BRAKE"
    case revealDestination = "REVEAL_DESTINATION"
    case followupQuestion = "FOLLOWUP_QUESTION"
    case scoreboard = "SCOREBOARD"
    case finalResults = "FINAL_RESULTS"
    case roundEnd = "ROUND_END"

    /// Phases in which a destination's clues are being read (before its reveal).
    var isCluePhase: Bool {
        switch self {
        case .roundIntro, .clueLevel, .pausedForBrake: true
        case .lobby, .preparingRound, .revealDestination, .followupQuestion, .scoreboard, .finalResults, .roundEnd:
            false
        }
    }
}

/// Who issues a command: a participant through its connection, or the box itself (REST calls, timers).
public enum Issuer: Sendable, Equatable, Codable {
    case participant(ParticipantID)
    case box
}

public struct Player: Codable, Sendable, Equatable {
    public let id: ParticipantID
    public let name: String
    public internal(set) var points: Int
    public let joinedAt: ServerTime
}

/// Whether a participant has a live connection; kept by the box, not part of the command log.
public enum Presence: Codable, Sendable, Equatable {
    case connected
    case disconnected(since: ServerTime)
}

/// Limits of the box rather than of one game; they come from the server configuration.
public struct Limits: Codable, Sendable, Equatable {
    public var maxPlayers: Int
    public var hostGraceMs: Int64
    public var brakeCooldownMs: Int64
    public var answerMaxLength: Int
    /// A player whose brake ran out unanswered may not pull again on that clue. Off for sessions
    /// whose logs were written before the rule (they replay as they were played).
    public var lapsedBrakeWaitsForNextClue: Bool

    public init(
        maxPlayers: Int = 50, hostGraceMs: Int64 = 60_000, brakeCooldownMs: Int64 = 2_000, answerMaxLength: Int = 100,
        lapsedBrakeWaitsForNextClue: Bool = true
    ) {
        self.maxPlayers = maxPlayers
        self.hostGraceMs = hostGraceMs
        self.brakeCooldownMs = brakeCooldownMs
        self.answerMaxLength = answerMaxLength
        self.lapsedBrakeWaitsForNextClue = lapsedBrakeWaitsForNextClue
    }
}

/// How long each screen stays up when the box advances by itself (`autoAdvance`, kiosk use).
public struct Pacing: Codable, Sendable, Equatable {
    public var clueMs: Int64
    public var revealMs: Int64
    public var followupResultsMs: Int64
    public var scoreboardMs: Int64
    /// Added to `clueMs` for each character of the clue: reading time that grows with its length.
    public var clueMsPerCharacter: Int64?
    /// How long the voice takes over a character of what it says at the reveal (its line, then the
    /// banter): the reveal stays up until both are said, however long `revealMs`. Nil (a session
    /// saved before it existed) holds the reveal `revealMs`, as it did then. `--auto-pace` scales
    /// it with the rest, for tests and demonstrations that run faster than anyone speaks.
    public var voiceMsPerCharacter: Int64?

    public init(
        clueMs: Int64 = 20_000, revealMs: Int64 = 8_000, followupResultsMs: Int64 = 6_000, scoreboardMs: Int64 = 8_000,
        clueMsPerCharacter: Int64? = nil, voiceMsPerCharacter: Int64? = 70
    ) {
        self.clueMs = clueMs
        self.revealMs = revealMs
        self.followupResultsMs = followupResultsMs
        self.scoreboardMs = scoreboardMs
        self.clueMsPerCharacter = clueMsPerCharacter
        self.voiceMsPerCharacter = voiceMsPerCharacter
    }

    /// A living room's game that plays itself (CONTRACT 4.2, docs/protocol.md "Playing without a
    /// host"): 10 s and 80 ms a character for a clue (about 20 s for a clue of 125 characters, 30 s
    /// for 250), and the reveal, results and scoreboard held long enough to cheer.
    public static let livingRoom = Pacing(
        clueMs: 10_000, revealMs: 12_000, followupResultsMs: 9_000, scoreboardMs: 12_000, clueMsPerCharacter: 80)

    /// How long a clue of `text` stays up.
    public func clueMs(for text: String) -> Int64 { clueMs + (clueMsPerCharacter ?? 0) * Int64(text.count) }

    /// How long the reveal stays up when the voice says `lines` one after the other: `revealMs`, or
    /// as long as they take and a breath of 30 characters' time after (the gap before the banter
    /// and a moment to cheer), when that is longer.
    public func revealMs(saying lines: [String]) -> Int64 {
        guard let voiceMsPerCharacter else { return revealMs }
        let characters = lines.reduce(30) { $0 + Int64($1.count) }
        return max(revealMs, characters * voiceMsPerCharacter)
    }

    /// Every duration times `scale` (`--auto-pace`).
    public func scaled(by scale: Double) -> Pacing {
        func times(_ ms: Int64) -> Int64 { Int64(Double(ms) * scale) }
        return Pacing(
            clueMs: times(clueMs), revealMs: times(revealMs), followupResultsMs: times(followupResultsMs),
            scoreboardMs: times(scoreboardMs), clueMsPerCharacter: clueMsPerCharacter.map(times),
            voiceMsPerCharacter: voiceMsPerCharacter.map(times))
    }
}

/// Which of the room's sound sources play a session: the TV page (which says so of itself) and the
/// box's own output, which the TV, the host or the captain may mute for the session.
public struct SoundOutputs: Codable, Sendable, Equatable {
    public var tvPage = false
    public var boxMuted = false

    public init(tvPage: Bool = false, boxMuted: Bool = false) {
        self.tvPage = tvPage
        self.boxMuted = boxMuted
    }
}
