import Foundation

/// Every message a client may send (`{ "type": T, "payload": {...} }`), decoded strictly: a wrong type or a
/// missing field is `BAD_MESSAGE`, an unknown `type` is `UNKNOWN_MESSAGE`.
public enum ClientMessage: Sendable, Equatable {
    case hello(Hello)
    case resumeSession
    case ping(Ping)
    case hostStartGame
    case hostNextClue
    case hostNext
    case hostSkip
    case hostForceReveal
    case hostPause
    case hostResume
    case hostKick(Kick)
    case hostEndSession
    case hostRestart
    /// The box's own: the finale now, with the standings as they are (docs/protocol.md).
    case hostEndGame
    /// The box's own: the next game's pack, in the lobby (docs/protocol.md).
    case hostSetPack(SetPack)
    case musicGainSet(MusicGain)
    /// The box's own: which of the room's sound sources play (docs/protocol.md, "Sound from the TV page").
    case soundOutputSet(SoundOutputSet)
    case brakePull(BrakePull)
    case brakeAnswerSubmit(AnswerSubmit)
    case followupAnswerSubmit(FollowupAnswerSubmit)
    case playerLeave
    case clockEcho(ClockEcho)

    public struct Hello: Codable, Sendable, Equatable {
        public var role: Role?
        public var authToken: String
        public var clientVersion: String?
        public var deviceId: String?

        public init(role: Role? = nil, authToken: String, clientVersion: String? = nil, deviceId: String? = nil) {
            self.role = role
            self.authToken = authToken
            self.clientVersion = clientVersion
            self.deviceId = deviceId
        }
    }

    public struct Ping: Codable, Sendable, Equatable {
        public var clientTimeMs: Int64
        public init(clientTimeMs: Int64) { self.clientTimeMs = clientTimeMs }
    }

    /// The answer to a `CLOCK_PROBE`: `clientTimeMs` read, at once, from the clock that stamps
    /// `BRAKE_PULL.atClientMs`.
    public struct ClockEcho: Codable, Sendable, Equatable {
        public var probeId: Int
        public var clientTimeMs: Int64
        public init(probeId: Int, clientTimeMs: Int64) {
            self.probeId = probeId
            self.clientTimeMs = clientTimeMs
        }
    }

    public struct Kick: Codable, Sendable, Equatable {
        public var playerId: ParticipantID
        public init(playerId: ParticipantID) { self.playerId = playerId }
    }

    public struct SetPack: Codable, Sendable, Equatable {
        public var packId: String
        public init(packId: String) { self.packId = packId }
    }

    /// `tvPage`: whether the TV page plays the room's sound (the TV says so of itself); `boxMuted`:
    /// whether the box's own output is silent for this session. Either may be left out.
    public struct SoundOutputSet: Codable, Sendable, Equatable {
        public var tvPage: Bool?
        public var boxMuted: Bool?
        public init(tvPage: Bool? = nil, boxMuted: Bool? = nil) {
            self.tvPage = tvPage
            self.boxMuted = boxMuted
        }
    }

    public struct BrakePull: Codable, Sendable, Equatable {
        public var atClientMs: Int64?
        /// The points of the clue the player was looking at. Used for a pull judged at its arrival
        /// (no clock estimate): read after that clue has gone, it is refused rather than won on a
        /// clue the player never saw (docs/protocol.md, "The fair brake").
        public var levelPoints: Int?
        public init(atClientMs: Int64? = nil, levelPoints: Int? = nil) {
            self.atClientMs = atClientMs
            self.levelPoints = levelPoints
        }
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            // A time that cannot be read is judged as a pull without one, at its arrival.
            atClientMs = try? container.decodeIfPresent(Int64.self, forKey: .atClientMs)
            levelPoints = try container.decodeIfPresent(Int.self, forKey: .levelPoints)
        }
    }

    public struct AnswerSubmit: Codable, Sendable, Equatable {
        public var answerText: String
        public init(answerText: String) { self.answerText = answerText }
    }

    public struct FollowupAnswerSubmit: Codable, Sendable, Equatable {
        public var index: Int
        public var answerText: String
        public init(index: Int, answerText: String) {
            self.index = index
            self.answerText = answerText
        }
    }

    public enum DecodeError: Error, Sendable, Equatable {
        case badMessage(String)
        case unknownType(String)
    }

    public var type: String {
        switch self {
        case .hello: "HELLO"
        case .resumeSession: "RESUME_SESSION"
        case .ping: "PING"
        case .hostStartGame: "HOST_START_GAME"
        case .hostNextClue: "HOST_NEXT_CLUE"
        case .hostNext: "HOST_NEXT"
        case .hostSkip: "HOST_SKIP"
        case .hostForceReveal: "HOST_FORCE_REVEAL"
        case .hostPause: "HOST_PAUSE"
        case .hostResume: "HOST_RESUME"
        case .hostKick: "HOST_KICK"
        case .hostEndSession: "HOST_END_SESSION"
        case .hostRestart: "HOST_RESTART"
        case .hostEndGame: "HOST_END_GAME"
        case .hostSetPack: "HOST_SET_PACK"
        case .musicGainSet: "MUSIC_GAIN_SET"
        case .soundOutputSet: "SOUND_OUTPUT_SET"
        case .brakePull: "BRAKE_PULL"
        case .brakeAnswerSubmit: "BRAKE_ANSWER_SUBMIT"
        case .followupAnswerSubmit: "FOLLOWUP_ANSWER_SUBMIT"
        case .playerLeave: "PLAYER_LEAVE"
        case .clockEcho: "CLOCK_ECHO"
        }
    }

    /// The whole message read in one pass of the JSON decoder: its `type`, then the payload that
    /// type has. (Reading the type and then the payload parsed every message twice, and pulls
    /// come in by the hundred at once.)
    private struct Envelope: Decodable {
        var message: ClientMessage

        private enum Keys: String, CodingKey { case type, payload }

        /// No JSON object with a string `type`.
        struct NoType: Error {}
        struct UnknownType: Error { var type: String }
        struct BadPayload: Error {
            var type: String
            var error: any Error
        }

        init(from decoder: any Decoder) throws {
            let container: KeyedDecodingContainer<Keys>
            let type: String
            do {
                container = try decoder.container(keyedBy: Keys.self)
                type = try container.decode(String.self, forKey: .type)
            } catch {
                throw NoType()
            }
            /// The payload as a `P`; `absent` stands for one left out, or null, where that is allowed.
            func payload<P: Decodable>(_: P.Type, absent: P? = nil) throws -> P {
                do {
                    if let absent { return try container.decodeIfPresent(P.self, forKey: .payload) ?? absent }
                    return try container.decode(P.self, forKey: .payload)
                } catch {
                    throw BadPayload(type: type, error: error)
                }
            }
            switch type {
            case "HELLO": message = .hello(try payload(Hello.self))
            case "RESUME_SESSION": message = .resumeSession
            case "PING": message = .ping(try payload(Ping.self))
            case "HOST_START_GAME": message = .hostStartGame
            case "HOST_NEXT_CLUE": message = .hostNextClue
            case "HOST_NEXT": message = .hostNext
            case "HOST_SKIP": message = .hostSkip
            case "HOST_FORCE_REVEAL": message = .hostForceReveal
            case "HOST_PAUSE": message = .hostPause
            case "HOST_RESUME": message = .hostResume
            case "HOST_KICK": message = .hostKick(try payload(Kick.self))
            case "HOST_END_SESSION": message = .hostEndSession
            case "HOST_RESTART": message = .hostRestart
            case "HOST_END_GAME": message = .hostEndGame
            case "HOST_SET_PACK": message = .hostSetPack(try payload(SetPack.self))
            case "MUSIC_GAIN_SET": message = .musicGainSet(try payload(MusicGain.self))
            case "SOUND_OUTPUT_SET": message = .soundOutputSet(try payload(SoundOutputSet.self))
            case "BRAKE_PULL": message = .brakePull(try payload(BrakePull.self, absent: BrakePull()))
            case "BRAKE_ANSWER_SUBMIT": message = .brakeAnswerSubmit(try payload(AnswerSubmit.self))
            case "FOLLOWUP_ANSWER_SUBMIT": message = .followupAnswerSubmit(try payload(FollowupAnswerSubmit.self))
            case "PLAYER_LEAVE": message = .playerLeave
            case "CLOCK_ECHO": message = .clockEcho(try payload(ClockEcho.self))
            default: throw UnknownType(type: type)
            }
        }
    }

    private static let decoder = JSONDecoder()

    public static func decode(_ data: Data) throws(DecodeError) -> ClientMessage {
        do {
            return try decoder.decode(Envelope.self, from: data).message
        } catch let error as Envelope.BadPayload {
            // A value Foundation refuses (say a number out of range) inside the payload is named by its path.
            throw .badMessage("\(error.type): \(DecodingProblem.describe(error.error, whole: "payload"))")
        } catch let error as Envelope.UnknownType {
            throw .unknownType(error.type)
        } catch {
            // Not JSON, or no object with a string "type".
            throw .badMessage("expected a JSON object with a string \"type\"")
        }
    }

    /// The message as a client sends it.
    public func encoded() -> Data {
        struct Envelope<Payload: Encodable>: Encodable {
            var type: String
            var payload: Payload
        }
        struct Empty: Encodable {}
        let encoder = JSONEncoder()
        func encode<P: Encodable>(_ payload: P) -> Data {
            // Encoding these plain structs cannot fail.
            try! encoder.encode(Envelope(type: type, payload: payload))
        }
        switch self {
        case .hello(let payload): return encode(payload)
        case .ping(let payload): return encode(payload)
        case .hostKick(let payload): return encode(payload)
        case .hostSetPack(let payload): return encode(payload)
        case .musicGainSet(let payload): return encode(payload)
        case .soundOutputSet(let payload): return encode(payload)
        case .brakePull(let payload): return encode(payload)
        case .brakeAnswerSubmit(let payload): return encode(payload)
        case .followupAnswerSubmit(let payload): return encode(payload)
        case .clockEcho(let payload): return encode(payload)
        case .resumeSession, .hostStartGame, .hostNextClue, .hostNext, .hostSkip, .hostForceReveal, .hostPause,
            .hostResume, .hostEndSession, .hostRestart, .hostEndGame, .playerLeave:
            return encode(Empty())
        }
    }
}
