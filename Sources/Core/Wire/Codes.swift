/// The contract's error codes: the `code` of every ERROR payload and REST error body the box sends.
///
/// `ErrorPayload.code` stays a string on the wire, so that a client reads a code a newer box added;
/// the box itself only ever sends one of these.
public enum ErrorCode: String, Codable, Sendable, CaseIterable {
    case badRequest = "BAD_REQUEST"
    case badMessage = "BAD_MESSAGE"
    case unknownMessage = "UNKNOWN_MESSAGE"
    case unauthorized = "UNAUTHORIZED"
    case forbidden = "FORBIDDEN"
    case notFound = "NOT_FOUND"
    case sessionNotFound = "SESSION_NOT_FOUND"
    case assetNotFound = "ASSET_NOT_FOUND"
    case invalidJoinToken = "INVALID_JOIN_TOKEN"
    case invalidSettings = "INVALID_SETTINGS"
    case invalidPhase = "INVALID_PHASE"
    case invalidName = "INVALID_NAME"
    case nameTaken = "NAME_TAKEN"
    case sessionFull = "SESSION_FULL"
    case hostRoleTaken = "HOST_ROLE_TAKEN"
    case tvRoleTaken = "TV_ROLE_TAKEN"
    case gameFinished = "GAME_FINISHED"
    case sessionEnded = "SESSION_ENDED"
    case rateLimited = "RATE_LIMITED"
    case storageUnavailable = "STORAGE_UNAVAILABLE"
    case invalidPack = "INVALID_PACK"
    case packReadOnly = "PACK_READ_ONLY"

    /// Whether the same request can succeed later as it is (the payload's `retryable`).
    public var isRetryable: Bool {
        switch self {
        case .rateLimited, .storageUnavailable: true
        case .badRequest, .badMessage, .unknownMessage, .unauthorized, .forbidden, .notFound, .sessionNotFound,
            .assetNotFound, .invalidJoinToken, .invalidSettings, .invalidPhase, .invalidName, .nameTaken, .sessionFull,
            .hostRoleTaken, .tvRoleTaken, .gameFinished, .sessionEnded, .invalidPack, .packReadOnly:
            false
        }
    }
}

/// Why the box closes a game socket: the close code and the reason text that go with it
/// (docs/protocol.md, "Closing").
public enum SocketClose: Sendable, Equatable, CaseIterable {
    /// The session ended; everyone is closed after the SESSION_ENDED.
    case sessionEnded
    /// The box is stopping; the session resumes when it is back.
    case boxShuttingDown
    /// The seat was taken away: kicked, left, or replaced by another host or TV.
    case revoked
    /// No valid token, or a seat that no longer exists.
    case unauthorized
    /// One seat opened more sockets than it may hold; the oldest goes.
    case tooManyConnections
    /// A command that was to close this socket could not be saved: reconnect to the saved state.
    case storageUnavailable

    public var code: UInt16 {
        switch self {
        case .sessionEnded: 1000
        case .boxShuttingDown: 1001
        case .tooManyConnections: 1008
        case .storageUnavailable: 1011
        case .revoked, .unauthorized: 4001
        }
    }

    public var reason: String {
        switch self {
        case .sessionEnded: "SESSION_ENDED"
        case .boxShuttingDown: "BOX_SHUTTING_DOWN"
        case .revoked: "REVOKED"
        case .unauthorized: "UNAUTHORIZED"
        case .tooManyConnections: "TOO_MANY_CONNECTIONS"
        case .storageUnavailable: "STORAGE_UNAVAILABLE"
        }
    }
}
