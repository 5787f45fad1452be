import Core
import Foundation
import Logging

/// What every session room needs from the box.
struct RoomEnvironment: Sendable {
    let database: BoxDatabase
    let packs: PackLibrary
    let address: PublicAddress
    let limits: Limits
    /// How long autoAdvance (kiosk) games stay on each screen.
    var pacing = Pacing()
    /// A game without a host (a captain's): paced for a living room (`Pacing.livingRoom`).
    var livingRoomPacing = Pacing.livingRoom
    /// The box's own sound output, when it has one.
    var speaker: Speaker?
    /// The beds and effects, for the speaker and for TV pages that play the room's sound.
    var sounds: SoundShelf?
    /// Where rooms say that saving fails, and works again.
    var health = BoxHealth()
    let logger: Logger
}

extension RoomEnvironment {
    /// The session's settings: the request's values over the defaults of the chosen (or default) pack.
    func settings(from request: SettingsRequest?) throws(BoxError) -> Settings {
        var request = request ?? SettingsRequest()
        let pack: Pack
        if let packId = request.packId {
            guard let found = packs.offered(packId) else {
                throw invalidSettings("packId \"\(packId)\" is not on this box")
            }
            if let language = request.language, language != found.language {
                throw invalidSettings("pack \(packId) is in \(found.language.rawValue), not \(language.rawValue)")
            }
            pack = found
        } else {
            guard let found = packs.defaultPack(for: request.language) else {
                throw invalidSettings("no pack on this box is in \(request.language?.rawValue ?? "any language")")
            }
            pack = found
        }
        request.packId = nil
        request.language = nil
        do {
            return try request.applied(to: Settings(packId: pack.packId, language: pack.language))
        } catch {
            throw invalidSettings("\(error.field) \(error.reason)")
        }
    }

    private func invalidSettings(_ message: String) -> BoxError {
        BoxError(status: 400, code: .invalidSettings, message: message)
    }
}

/// Why the box refused a request: the contract's error code, an HTTP status for REST, a readable message.
struct BoxError: Error, Sendable, Equatable {
    var httpStatus: Int
    var code: ErrorCode
    var message: String
    /// For a 429: the seconds after which the same call can succeed (the `Retry-After` header).
    var retryAfterSeconds: Int?
    /// For a 422 INVALID_PACK: each problem, where in the pack it is.
    var problems: [Problem]?

    struct Problem: Codable, Sendable, Equatable {
        var path: String
        var message: String
    }

    static func badRequest(_ message: String) -> BoxError {
        BoxError(status: 400, code: .badRequest, message: message)
    }
    static let sessionNotFound = BoxError(
        status: 404, code: .sessionNotFound, message: "Session not found or expired")
    static let invalidJoinToken = BoxError(
        status: 403, code: .invalidJoinToken, message: "The join link or code does not match this session")
    static let unauthorized = BoxError(status: 401, code: .unauthorized, message: "A valid token is needed")
    static func rateLimited(_ message: String, retryAfter seconds: Int) -> BoxError {
        var error = BoxError(status: 429, code: .rateLimited, message: message)
        error.retryAfterSeconds = max(1, seconds)
        return error
    }
    static func storage(_ message: String) -> BoxError {
        BoxError(status: 503, code: .storageUnavailable, message: "The box could not save this: \(message)")
    }

    /// A refused game command, with the HTTP status the REST calls use for it.
    init(_ error: GameError) {
        let status: Int
        switch error {
        case .forbidden: status = 403
        case .invalidPhase, .nameTaken, .sessionFull, .hostRoleTaken, .tvRoleTaken, .gameFinished: status = 409
        case .invalidPayload: status = 400
        case .invalidName: status = 400
        case .sessionEnded: status = 410
        }
        self.init(status: status, code: error.code, message: error.description)
    }

    init(status: Int, code: ErrorCode, message: String) {
        httpStatus = status
        self.code = code
        self.message = message
    }

    var payload: ErrorPayload { ErrorPayload(code, message: message) }
}
