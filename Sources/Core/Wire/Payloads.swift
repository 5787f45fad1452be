// The payloads of the contract's server events (CONTRACT.md section 3), with its exact names.

public struct PlayerView: Codable, Sendable, Equatable {
    public var playerId: ParticipantID
    public var name: String
    public var isConnected: Bool
    public var points: Int
}

public struct Standing: Codable, Sendable, Equatable {
    public var playerId: ParticipantID
    public var name: String
    public var points: Int
    /// `true` for a player who left during the game: their points stay on the scoreboard.
    public var left: Bool?
}

public struct TimerView: Codable, Sendable, Equatable {
    public var timerId: String
    public var startAtServerMs: ServerTime
    public var durationMs: Int64
    public var phase: Phase
    /// Present only while the timer is frozen (host pause or brake): what is left when it runs again.
    public var remainingMs: Int64?
}

public struct PlayerJoined: Codable, Sendable, Equatable {
    public var player: PlayerView
}

public struct PlayerLeft: Codable, Sendable, Equatable {
    public enum Reason: String, Codable, Sendable {
        case left, kicked
    }
    public var playerId: ParticipantID
    public var reason: Reason
}

public struct LobbyUpdated: Codable, Sendable, Equatable {
    public var players: [PlayerView]
    public var hasHost: Bool
    public var hasTv: Bool
    public var settings: Settings
}

public struct CluePresent: Codable, Sendable, Equatable {
    public var levelPoints: Int
    public var clueText: String
    /// 1-based: the 10-point clue is level 1 of 5.
    public var levelIndex: Int
    public var totalLevels: Int
}

public struct BrakeAccepted: Codable, Sendable, Equatable {
    public var brakeOwnerPlayerId: ParticipantID
    public var playerName: String
    public var levelPoints: Int
    public var lockedPlayersCount: Int
    public var deadlineServerMs: ServerTime
    /// When the winning pull was judged pressed, on the box's clock (docs/protocol.md, "The fair brake").
    public var judgedAtServerMs: ServerTime?
    /// How much earlier than its arrival the winning pull was judged.
    public var compensatedMs: Int64?
    /// How long after the level's first pull arrived the box decided.
    public var decidedAfterMs: Int64?
}

public enum BrakeRejection: String, Codable, Sendable, Equatable, CaseIterable {
    case alreadyPaused = "already_paused"
    case notAllowed = "not_allowed"
    case rateLimited = "rate_limited"
    case alreadyAnswered = "already_answered"
    /// Another player's pull was judged earlier (the arbitration window).
    case beaten
}

/// Sent to each PLAYER connection to measure its round trip and clock (`CLOCK_ECHO`).
public struct ClockProbe: Codable, Sendable, Equatable {
    public var probeId: Int
    public var serverTimeMs: ServerTime
    public init(probeId: Int, serverTimeMs: ServerTime) {
        self.probeId = probeId
        self.serverTimeMs = serverTimeMs
    }
}

/// Each connected player's link, for the HOST.
public struct ConnectionQuality: Codable, Sendable, Equatable {
    public struct Link: Codable, Sendable, Equatable {
        public var playerId: ParticipantID
        /// The median round trip of the recent probes; nil before the first echo.
        public var rttMs: Int64?
        /// How much the one-way delay varies beyond its lowest.
        public var jitterMs: Int64?
        /// The box has a clock estimate for the phone, so its pulls are judged by when they were pressed.
        public var clockOk: Bool
        public init(playerId: ParticipantID, rttMs: Int64?, jitterMs: Int64?, clockOk: Bool) {
            self.playerId = playerId
            self.rttMs = rttMs
            self.jitterMs = jitterMs
            self.clockOk = clockOk
        }
    }
    public var players: [Link]
    public init(players: [Link]) { self.players = players }
}

public struct BrakeRejected: Codable, Sendable, Equatable {
    public var reason: BrakeRejection
}

public struct BrakeAnswerLocked: Codable, Sendable, Equatable {
    public var playerId: ParticipantID
    public var lockedAtLevelPoints: Int
    /// The HOST's copy only.
    public var answerText: String?
}

public struct DestinationReveal: Codable, Sendable, Equatable {
    public var destinationName: String
    public var country: String
    public var revealText: String
}

public struct DestinationResult: Codable, Sendable, Equatable {
    public var playerId: ParticipantID
    public var answerText: String
    public var isCorrect: Bool
    public var pointsAwarded: Int
    public var lockedAtLevelPoints: Int
}

public struct DestinationResults: Codable, Sendable, Equatable {
    public var results: [DestinationResult]
}

public struct ScoreboardUpdate: Codable, Sendable, Equatable {
    public var standings: [Standing]
}

public struct FollowupPresent: Codable, Sendable, Equatable {
    /// 1-based.
    public var index: Int
    public var total: Int
    public var questionText: String
    public var options: [String]?
    public var timer: TimerView
}

public struct FollowupLocked: Codable, Sendable, Equatable {
    public var index: Int
}

public struct FollowupResult: Codable, Sendable, Equatable {
    public var playerId: ParticipantID
    /// Absent when the player gave no answer.
    public var answerText: String?
    public var isCorrect: Bool
    public var pointsAwarded: Int
}

public struct FollowupResults: Codable, Sendable, Equatable {
    public var index: Int
    public var correctAnswer: String
    public var results: [FollowupResult]
}

public struct FinalResults: Codable, Sendable, Equatable {
    /// The single winner, or the first of the tie winners; absent when nobody is left.
    public var winnerPlayerId: ParticipantID?
    public var isTie: Bool
    public var tieWinners: [ParticipantID]
    public var standingsTop: [Standing]
    public var standingsFull: [Standing]
}

public struct AudioPlay: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable {
        case intro, clue, reveal, followup, banter
    }
    public var clipId: String
    public var kind: Kind
    /// Filled in by the box, which knows where it serves the clip.
    public var url: String?
    public var startAtServerMs: ServerTime
    /// Filled in by the box from the clip file; absent when the clip is missing.
    public var durationMs: Int64?
}

public struct AudioStop: Codable, Sendable, Equatable {
    public init() {}
}

public struct MusicSet: Codable, Sendable, Equatable {
    public var trackId: String
    public var mode: String
    public var startAtServerMs: ServerTime
    public var gainDb: Double

    public init(trackId: String, mode: String, startAtServerMs: ServerTime, gainDb: Double) {
        self.trackId = trackId
        self.mode = mode
        self.startAtServerMs = startAtServerMs
        self.gainDb = gainDb
    }
}

public struct MusicStop: Codable, Sendable, Equatable {
    public var fadeOutMs: Int
    public init(fadeOutMs: Int) { self.fadeOutMs = fadeOutMs }
}

public struct MusicGain: Codable, Sendable, Equatable {
    public var gainDb: Double
    public init(gainDb: Double) { self.gainDb = gainDb }
}

public struct SfxPlay: Codable, Sendable, Equatable {
    public var sfxId: String
    public var startAtServerMs: ServerTime
}

public struct UIEffectTrigger: Codable, Sendable, Equatable {
    /// `confetti`, `flash`, `spotlight` (on `playerId`) or `pulse` (docs/protocol.md, "The moments").
    public var effectId: String
    public var intensity: String
    public var durationMs: Int
    public var startAtServerMs: ServerTime
    /// Whom a `spotlight` is on.
    public var playerId: ParticipantID?

    public init(
        effectId: String, intensity: String, durationMs: Int, startAtServerMs: ServerTime,
        playerId: ParticipantID? = nil
    ) {
        self.effectId = effectId
        self.intensity = intensity
        self.durationMs = durationMs
        self.startAtServerMs = startAtServerMs
        self.playerId = playerId
    }
}

public struct SessionEnded: Codable, Sendable, Equatable {
    public var reason: String
    public init(reason: String) { self.reason = reason }
}

public struct ErrorPayload: Codable, Sendable, Equatable {
    public var code: String
    public var message: String
    public var retryable: Bool

    public init(code: String, message: String, retryable: Bool = false) {
        self.code = code
        self.message = message
        self.retryable = retryable
    }

    /// An error the box sends; `retryable` as the code says.
    public init(_ code: ErrorCode, message: String) {
        self.init(code: code.rawValue, message: message, retryable: code.isRetryable)
    }
}

public struct Welcome: Codable, Sendable, Equatable {
    public var connectionId: String
    public var serverTimeMs: ServerTime
    public var timeOffsetHintMs: Int64
    public var role: Role
    public var playerId: ParticipantID?
    public var projection: Projection

    public init(
        connectionId: String, serverTimeMs: ServerTime, timeOffsetHintMs: Int64, role: Role, playerId: ParticipantID?,
        projection: Projection
    ) {
        self.connectionId = connectionId
        self.serverTimeMs = serverTimeMs
        self.timeOffsetHintMs = timeOffsetHintMs
        self.role = role
        self.playerId = playerId
        self.projection = projection
    }
}

public struct Pong: Codable, Sendable, Equatable {
    public var clientTimeMs: Int64
    public var serverTimeMs: ServerTime

    public init(clientTimeMs: Int64, serverTimeMs: ServerTime) {
        self.clientTimeMs = clientTimeMs
        self.serverTimeMs = serverTimeMs
    }
}
