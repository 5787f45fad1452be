import Core
import GRDB

/// One row per session. `joinToken` is kept as is (it is printed in every QR code and join link);
/// every auth token is kept only as its SHA-256.
struct SessionRecord: Codable, FetchableRecord, PersistableRecord, Sendable {
    static let databaseTableName = "session"
    var id: String
    var joinCode: String
    var joinToken: String
    var tvJoinTokenHash: String
    var settings: Settings
    /// The player limit the session was created with; replay uses it, whatever the box runs with now.
    var maxPlayers: Int
    var createdAt: Int64
    var endedAt: Int64?
    var endedReason: String?
    /// How long an autoAdvance game stays on each screen (`--auto-pace`) when the session was
    /// created; replay uses it, whatever the box runs with now, since its timers' firings are in
    /// the log. Nil for sessions from before it was kept: they replay with the box's.
    var pacing: Pacing? = nil
    /// The game rules the session was created under (`currentRules`). Replay applies those, so that
    /// a log written before a rule changed replays as it was played. Nil: before rules were kept (1).
    var rules: Int? = nil

    /// 2: a player whose brake ran out unanswered waits for the next clue to pull again.
    static let currentRules = 2

    /// The limits this session's game is played and replayed with.
    var limits: Limits {
        Limits(maxPlayers: maxPlayers, lapsedBrakeWaitsForNextClue: (rules ?? 1) >= 2)
    }
}

/// A host, TV or player of a session, found by the hash of its auth token.
struct ParticipantRecord: Codable, Equatable, FetchableRecord, PersistableRecord, Sendable {
    static let databaseTableName = "participant"
    var id: String
    var sessionId: String
    var role: Role
    var tokenHash: String
    var createdAt: Int64
    var revokedAt: Int64?
}

/// One accepted command of a session, in order: replaying them through Core rebuilds the game.
struct CommandRecord: Codable, Equatable, FetchableRecord, PersistableRecord, Sendable {
    static let databaseTableName = "command"
    var sessionId: String
    var seq: Int
    var at: Int64
    var actor: Issuer
    var command: Command
}

/// When the box last played a destination, so new games draw others first.
struct PlayedRecord: Codable, FetchableRecord, PersistableRecord, Sendable {
    static let databaseTableName = "played"
    var packId: String
    var destinationId: String
    var playedAt: Int64
}
