/// What can happen to a game. Commands are data so every game can be replayed from its log.
public enum Command: Codable, Sendable, Equatable {
    // Membership, issued by the box on REST calls.
    /// `device`: a hash of the phone's device cookie (docs/protocol.md, "Devices"), when it sent one.
    /// `captain`: the player who created a game without a host (CONTRACT 4.2).
    case join(playerId: ParticipantID, name: String, device: String? = nil, captain: Bool? = nil)
    case claimHost(ParticipantID)
    case claimTv(ParticipantID)
    // Host commands.
    /// HOST_START_GAME with the destinations the box drew for this game (`DestinationDraw`).
    case start(destinations: [Destination])
    case nextClue
    case next
    case forceReveal
    case pause
    case resume
    /// `keepOut`: the player's phone may not join this session again (docs/protocol.md, "Devices");
    /// the box sets it for a player kicked while connected.
    case kick(playerId: ParticipantID, keepOut: Bool? = nil)
    case restart
    /// HOST_END_GAME: the finale now, with the standings as they are.
    case endGame
    /// HOST_SET_PACK: in the lobby, the next game's pack (the box checked that it has it).
    case setPack(packId: String, language: Language)
    case setMusicGain(gainDb: Double)
    /// SOUND_OUTPUT_SET: the TV page says whether it plays the room's sound; the TV or whoever has
    /// the controls mutes or unmutes the box's own output for this session.
    case setSoundOutput(tvPage: Bool?, boxMuted: Bool?)
    /// The host (HOST_END_SESSION, DELETE) or the box (expiry) ends the session.
    case end(reason: String)
    // Player commands.
    /// `levelPoints`: the clue the player pulled on, when its client says (older logs have none).
    /// `timing`: when the box judged it pressed (older logs and pulls without a clock estimate have
    /// none, and are judged at their arrival).
    case brakePull(levelPoints: Int? = nil, timing: PullTiming? = nil)
    case brakeAnswer(answerText: String)
    case followupAnswer(index: Int, answerText: String)
    case leave
    // The box, when `Game.nextDeadline` has passed.
    case timerFired(timerId: String)
}

extension Command {
    /// Whether the brake's arbitration window is decided before this command: what moves the game on
    /// from the clue. A pull joins the window, a player who goes takes their pulls out of it
    /// (`Game.removePlayer`), ending or restarting the game drops it, and joining, music and
    /// answers leave it be.
    var settlesArbitration: Bool {
        switch self {
        case .brakePull, .join, .claimHost, .claimTv, .setMusicGain, .setSoundOutput, .followupAnswer, .brakeAnswer,
            .kick, .leave,
            .restart, .end, .setPack:
            false
        case .timerFired(let timerId): timerId != Arbitration.timerId
        case .start, .nextClue, .next, .forceReveal, .pause, .resume, .endGame: true
        }
    }
}

/// Why a command was refused. Each maps to one of the contract's error codes; the game is unchanged.
public enum GameError: Error, Sendable, Equatable, CustomStringConvertible {
    case forbidden(String)
    case invalidPhase(String)
    case invalidPayload(String)
    case invalidName(String)
    case nameTaken
    case sessionFull
    case hostRoleTaken
    case tvRoleTaken
    case gameFinished
    case sessionEnded

    /// The contract's error code.
    public var code: ErrorCode {
        switch self {
        case .forbidden: .forbidden
        case .invalidPhase: .invalidPhase
        case .invalidPayload: .badMessage
        case .invalidName: .invalidName
        case .nameTaken: .nameTaken
        case .sessionFull: .sessionFull
        case .hostRoleTaken: .hostRoleTaken
        case .tvRoleTaken: .tvRoleTaken
        case .gameFinished: .gameFinished
        case .sessionEnded: .sessionEnded
        }
    }

    public var description: String {
        switch self {
        case .forbidden(let message), .invalidPhase(let message), .invalidPayload(let message),
            .invalidName(let message):
            message
        case .nameTaken: "That name is already taken in this session"
        case .sessionFull: "This session is full"
        case .hostRoleTaken: "This session already has a host"
        case .tvRoleTaken: "TV already connected to this session"
        case .gameFinished: "This game has just finished; join when the next one starts"
        case .sessionEnded: "This session has ended"
        }
    }
}

/// Who receives an event.
public enum Audience: Sendable, Equatable {
    case everyone
    case host
    /// Everyone but the host: the redacted copy of an event whose full copy goes to the host.
    case tvAndPlayers
    case participant(ParticipantID)
    /// Sound and picture cues for the room: the TV, and the box's own speakers.
    case room

    public func includes(role: Role, participant: ParticipantID?) -> Bool {
        switch self {
        case .everyone: true
        case .host: role == .host
        case .tvAndPlayers: role != .host
        case .participant(let id): participant == id
        case .room: role == .tv
        }
    }
}

/// What the box must do after a command: data, interpreted by the box after it has persisted the command.
public enum Effect: Sendable, Equatable {
    case send(ServerEvent, to: Audience)
    /// The participant's token stops working and its connections are closed (kick, leave, replaced host or TV).
    case revoke(ParticipantID)
    /// The session is over: mark it read-only and close every connection after SESSION_ENDED.
    case ended(reason: String)
}

extension Effect {
    /// A brake was accepted: its state goes out with it, not at the next free moment.
    public var acceptsBrake: Bool {
        if case .send(.brakeAccepted, _) = self { true } else { false }
    }
}

/// The next timer to fire.
public struct Deadline: Sendable, Equatable {
    public let timerId: String
    public let at: ServerTime
}
