import Foundation

/// Every message the box sends, by the contract's `type` names.
public enum ServerEvent: Sendable, Equatable {
    case welcome(Welcome)
    case stateSnapshot(Projection)
    case statePatch(StatePatch)
    case pong(Pong)
    case error(ErrorPayload)
    case playerJoined(PlayerJoined)
    case playerLeft(PlayerLeft)
    case lobbyUpdated(LobbyUpdated)
    case cluePresent(CluePresent)
    case brakeAccepted(BrakeAccepted)
    case brakeRejected(BrakeRejected)
    case brakeAnswerLocked(BrakeAnswerLocked)
    case destinationReveal(DestinationReveal)
    case destinationResults(DestinationResults)
    case scoreboardUpdate(ScoreboardUpdate)
    case followupPresent(FollowupPresent)
    case followupLocked(FollowupLocked)
    case followupResults(FollowupResults)
    case finalResultsPresent(FinalResults)
    case timerSync(TimerView)
    case audioPlay(AudioPlay)
    case audioStop(AudioStop)
    case musicSet(MusicSet)
    case musicStop(MusicStop)
    case musicGainSet(MusicGain)
    case sfxPlay(SfxPlay)
    case uiEffectTrigger(UIEffectTrigger)
    case sessionEnded(SessionEnded)
    case clockProbe(ClockProbe)
    case connectionQuality(ConnectionQuality)

    public var type: String {
        switch self {
        case .welcome: "WELCOME"
        case .stateSnapshot: "STATE_SNAPSHOT"
        case .statePatch: "STATE_PATCH"
        case .pong: "PONG"
        case .error: "ERROR"
        case .playerJoined: "PLAYER_JOINED"
        case .playerLeft: "PLAYER_LEFT"
        case .lobbyUpdated: "LOBBY_UPDATED"
        case .cluePresent: "CLUE_PRESENT"
        case .brakeAccepted: "BRAKE_ACCEPTED"
        case .brakeRejected: "BRAKE_REJECTED"
        case .brakeAnswerLocked: "BRAKE_ANSWER_LOCKED"
        case .destinationReveal: "DESTINATION_REVEAL"
        case .destinationResults: "DESTINATION_RESULTS"
        case .scoreboardUpdate: "SCOREBOARD_UPDATE"
        case .followupPresent: "FOLLOWUP_PRESENT"
        case .followupLocked: "FOLLOWUP_LOCKED"
        case .followupResults: "FOLLOWUP_RESULTS"
        case .finalResultsPresent: "FINAL_RESULTS_PRESENT"
        case .timerSync: "TIMER_SYNC"
        case .audioPlay: "AUDIO_PLAY"
        case .audioStop: "AUDIO_STOP"
        case .musicSet: "MUSIC_SET"
        case .musicStop: "MUSIC_STOP"
        case .musicGainSet: "MUSIC_GAIN_SET"
        case .sfxPlay: "SFX_PLAY"
        case .uiEffectTrigger: "UI_EFFECT_TRIGGER"
        case .sessionEnded: "SESSION_ENDED"
        case .clockProbe: "CLOCK_PROBE"
        case .connectionQuality: "CONNECTION_QUALITY"
        }
    }

    /// The event's payload: what goes under the envelope's `payload`.
    public var payload: any Encodable & Sendable {
        switch self {
        case .welcome(let payload): payload
        case .stateSnapshot(let payload): payload
        case .statePatch(let payload): payload
        case .pong(let payload): payload
        case .error(let payload): payload
        case .playerJoined(let payload): payload
        case .playerLeft(let payload): payload
        case .lobbyUpdated(let payload): payload
        case .cluePresent(let payload): payload
        case .brakeAccepted(let payload): payload
        case .brakeRejected(let payload): payload
        case .brakeAnswerLocked(let payload): payload
        case .destinationReveal(let payload): payload
        case .destinationResults(let payload): payload
        case .scoreboardUpdate(let payload): payload
        case .followupPresent(let payload): payload
        case .followupLocked(let payload): payload
        case .followupResults(let payload): payload
        case .finalResultsPresent(let payload): payload
        case .timerSync(let payload): payload
        case .audioPlay(let payload): payload
        case .audioStop(let payload): payload
        case .musicSet(let payload): payload
        case .musicStop(let payload): payload
        case .musicGainSet(let payload): payload
        case .sfxPlay(let payload): payload
        case .uiEffectTrigger(let payload): payload
        case .sessionEnded(let payload): payload
        case .clockProbe(let payload): payload
        case .connectionQuality(let payload): payload
        }
    }

    fileprivate init(type: String, from container: KeyedDecodingContainer<ServerMessage.CodingKeys>) throws {
        let key = ServerMessage.CodingKeys.payload
        func payload<T: Decodable>(_: T.Type) throws -> T { try container.decode(T.self, forKey: key) }
        switch type {
        case "WELCOME": self = .welcome(try payload(Welcome.self))
        case "STATE_SNAPSHOT": self = .stateSnapshot(try payload(Projection.self))
        case "STATE_PATCH": self = .statePatch(try payload(StatePatch.self))
        case "PONG": self = .pong(try payload(Pong.self))
        case "ERROR": self = .error(try payload(ErrorPayload.self))
        case "PLAYER_JOINED": self = .playerJoined(try payload(PlayerJoined.self))
        case "PLAYER_LEFT": self = .playerLeft(try payload(PlayerLeft.self))
        case "LOBBY_UPDATED": self = .lobbyUpdated(try payload(LobbyUpdated.self))
        case "CLUE_PRESENT": self = .cluePresent(try payload(CluePresent.self))
        case "BRAKE_ACCEPTED": self = .brakeAccepted(try payload(BrakeAccepted.self))
        case "BRAKE_REJECTED": self = .brakeRejected(try payload(BrakeRejected.self))
        case "BRAKE_ANSWER_LOCKED": self = .brakeAnswerLocked(try payload(BrakeAnswerLocked.self))
        case "DESTINATION_REVEAL": self = .destinationReveal(try payload(DestinationReveal.self))
        case "DESTINATION_RESULTS": self = .destinationResults(try payload(DestinationResults.self))
        case "SCOREBOARD_UPDATE": self = .scoreboardUpdate(try payload(ScoreboardUpdate.self))
        case "FOLLOWUP_PRESENT": self = .followupPresent(try payload(FollowupPresent.self))
        case "FOLLOWUP_LOCKED": self = .followupLocked(try payload(FollowupLocked.self))
        case "FOLLOWUP_RESULTS": self = .followupResults(try payload(FollowupResults.self))
        case "FINAL_RESULTS_PRESENT": self = .finalResultsPresent(try payload(FinalResults.self))
        case "TIMER_SYNC": self = .timerSync(try payload(TimerView.self))
        case "AUDIO_PLAY": self = .audioPlay(try payload(AudioPlay.self))
        case "AUDIO_STOP": self = .audioStop(try payload(AudioStop.self))
        case "MUSIC_SET": self = .musicSet(try payload(MusicSet.self))
        case "MUSIC_STOP": self = .musicStop(try payload(MusicStop.self))
        case "MUSIC_GAIN_SET": self = .musicGainSet(try payload(MusicGain.self))
        case "SFX_PLAY": self = .sfxPlay(try payload(SfxPlay.self))
        case "UI_EFFECT_TRIGGER": self = .uiEffectTrigger(try payload(UIEffectTrigger.self))
        case "SESSION_ENDED": self = .sessionEnded(try payload(SessionEnded.self))
        case "CLOCK_PROBE": self = .clockProbe(try payload(ClockProbe.self))
        case "CONNECTION_QUALITY": self = .connectionQuality(try payload(ConnectionQuality.self))
        default:
            throw DecodingError.dataCorruptedError(
                forKey: .type, in: container, debugDescription: "unknown server message type \(type)")
        }
    }
}

/// The envelope of every server → client message: `{ type, sessionId, serverTimeMs, payload }`.
public struct ServerMessage: Codable, Sendable, Equatable {
    public var sessionId: String
    public var serverTimeMs: ServerTime
    public var event: ServerEvent

    public init(sessionId: String, serverTimeMs: ServerTime, event: ServerEvent) {
        self.sessionId = sessionId
        self.serverTimeMs = serverTimeMs
        self.event = event
    }

    public var type: String { event.type }

    enum CodingKeys: String, CodingKey {
        case type, sessionId, serverTimeMs, payload
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(event.type, forKey: .type)
        try container.encode(sessionId, forKey: .sessionId)
        try container.encode(serverTimeMs, forKey: .serverTimeMs)
        try container.encode(event.payload, forKey: .payload)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        sessionId = try container.decode(String.self, forKey: .sessionId)
        serverTimeMs = try container.decode(ServerTime.self, forKey: .serverTimeMs)
        event = try ServerEvent(type: try container.decode(String.self, forKey: .type), from: container)
    }
}
