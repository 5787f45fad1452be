/// One recipient's view of the game: the payload of STATE_SNAPSHOT (CONTRACT.md "STATE_SNAPSHOT payload").
/// Built only by `Game.projection(for:now:)`, which applies the secrecy rules.
public struct Projection: Codable, Sendable, Equatable {
    public struct Round: Codable, Sendable, Equatable {
        /// 1-based.
        public var index: Int
        public var total: Int
        public var destination: DestinationView?
        /// Everyone, once the destination is revealed: how each locked answer scored.
        public var results: [DestinationResult]?

        /// `destination` is written as `null` while it is secret: the contract's shape is
        /// `destination: {…} | null`.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(index, forKey: .index)
            try container.encode(total, forKey: .total)
            try container.encode(destination, forKey: .destination)
            try container.encodeIfPresent(results, forKey: .results)
        }
    }

    public struct DestinationView: Codable, Sendable, Equatable {
        public var name: String
        public var country: String
        /// HOST only.
        public var aliases: [String]?
        /// HOST only.
        public var sources: [String]?
        /// The reveal line, once revealed (HOST: always).
        public var revealText: String?
        /// Where it is, for the TV's map: sent with the name, never before.
        public var lat: Double?
        public var lon: Double?
        /// The line of the pack's banter said after the reveal, if the destination has any.
        public var banter: String?
    }

    /// A destination of this game already revealed: a stop on the journey the TV's map draws.
    public struct Stop: Codable, Sendable, Equatable {
        public var name: String
        public var country: String
        public var lat: Double
        public var lon: Double
    }

    /// The room's sound: which sources play it, and the music bed under way (for a TV page that
    /// switches its sound on mid-game).
    public struct Sound: Codable, Sendable, Equatable {
        public var tvPage: Bool
        public var boxMuted: Bool
        /// Whether the box has a sound output of its own (`--no-audio` has none).
        public var boxOutput: Bool
        public var musicTrackId: String?
        /// When that bed starts, or started: the finale's comes in after the fanfare.
        public var musicStartAtServerMs: ServerTime?
        public var musicGainDb: Double

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(tvPage, forKey: .tvPage)
            try container.encode(boxMuted, forKey: .boxMuted)
            try container.encode(boxOutput, forKey: .boxOutput)
            try container.encode(musicTrackId, forKey: .musicTrackId)
            try container.encode(musicStartAtServerMs, forKey: .musicStartAtServerMs)
            try container.encode(musicGainDb, forKey: .musicGainDb)
        }
    }

    public struct Clue: Codable, Sendable, Equatable {
        public var levelPoints: Int
        public var clueText: String
        public var levelIndex: Int
        public var totalLevels: Int
    }

    public struct Brake: Codable, Sendable, Equatable {
        public var brakeOwnerPlayerId: ParticipantID
        public var levelPoints: Int
        public var deadlineServerMs: ServerTime
    }

    public struct LockedAnswer: Codable, Sendable, Equatable {
        public var playerId: ParticipantID
        public var lockedAtLevelPoints: Int
        /// HOST only before the reveal.
        public var answerText: String?
    }

    public struct Followup: Codable, Sendable, Equatable {
        public var index: Int
        public var total: Int
        public var questionText: String
        public var options: [String]?
        public var timer: TimerView
        /// Whether answers are still taken.
        public var isOpen: Bool
        /// HOST always; everyone once FOLLOWUP_RESULTS of this question went out.
        public var correctAnswer: String?
        /// How many players have answered so far.
        public var answeredCount: Int
        /// HOST only: every answer so far, in join order of the players.
        public var answers: [FollowupAnswer]?
        /// Everyone, once FOLLOWUP_RESULTS of this question went out.
        public var results: [FollowupResult]?
    }

    public struct FollowupAnswer: Codable, Sendable, Equatable {
        public var playerId: ParticipantID
        public var answerText: String
    }

    public struct You: Codable, Sendable, Equatable {
        public var playerId: ParticipantID
        public var name: String
        public var points: Int
        public var hasLockedAnswer: Bool
        /// 1-based place on the scoreboard (shared places share the number).
        public var rank: Int
        /// Your current answer to the open followup, if any.
        public var followupAnswer: String?
    }

    public var version: Int
    public var phase: Phase
    public var paused: Bool
    public var joinCode: String
    public var joinUrl: String
    public var settings: Settings
    public var hasHost: Bool
    public var hasTv: Bool
    /// The player with the controls of a game without a host (CONTRACT 4.2); null in other games.
    public var captainPlayerId: ParticipantID?
    public var players: [PlayerView]
    public var round: Round?
    /// This game's destinations revealed so far, in the order played (the current one once revealed).
    /// Optional only for snapshots of boxes from before it (as `sound`); this box always sends both.
    public var journey: [Stop]?
    public var sound: Sound?
    public var clue: Clue?
    public var brake: Brake?
    public var lockedAnswers: [LockedAnswer]
    public var followup: Followup?
    public var scoreboard: [Standing]
    public var timers: [TimerView]
    public var finalResults: FinalResults?
    public var you: You?
    /// Set once the session has ended (then every command is refused).
    public var endedReason: String?
}

extension Projection {
    private enum CodingKeys: String, CodingKey {
        case version, phase, paused, joinCode, joinUrl, settings, hasHost, hasTv, captainPlayerId, players, round, clue
        case journey, sound, brake
        case lockedAnswers, followup, scoreboard, timers, finalResults, you, endedReason
    }

    /// The contract writes absent parts as `null`, so they are encoded explicitly rather than left out.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(version, forKey: .version)
        try container.encode(phase, forKey: .phase)
        try container.encode(paused, forKey: .paused)
        try container.encode(joinCode, forKey: .joinCode)
        try container.encode(joinUrl, forKey: .joinUrl)
        try container.encode(settings, forKey: .settings)
        try container.encode(hasHost, forKey: .hasHost)
        try container.encode(hasTv, forKey: .hasTv)
        try container.encode(captainPlayerId, forKey: .captainPlayerId)
        try container.encode(players, forKey: .players)
        try container.encode(round, forKey: .round)
        try container.encode(journey, forKey: .journey)
        try container.encode(sound, forKey: .sound)
        try container.encode(clue, forKey: .clue)
        try container.encode(brake, forKey: .brake)
        try container.encode(lockedAnswers, forKey: .lockedAnswers)
        try container.encode(followup, forKey: .followup)
        try container.encode(scoreboard, forKey: .scoreboard)
        try container.encode(timers, forKey: .timers)
        try container.encode(finalResults, forKey: .finalResults)
        try container.encode(you, forKey: .you)
        try container.encodeIfPresent(endedReason, forKey: .endedReason)
    }
}
