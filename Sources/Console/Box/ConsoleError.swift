import Core

/// Why the console cannot go on, in words for the person at the terminal.
enum ConsoleError: Error, Sendable, Equatable, CustomStringConvertible {
    case badURL(String)
    case unreachable(String, String)
    /// The box said no: the contract's error code and its message.
    case refused(code: String, message: String)
    case noBox
    /// mDNS cannot be asked (avahi-daemon is not running or not reachable): why, in avahi's words.
    case cannotLook(String)
    case severalBoxes([String])
    case unexpected(String)
    /// An HTTP status without the box's error body (a route the box does not have): the request and
    /// the status.
    case answered(String, status: Int)
    /// The box closed the socket for good with 4001: the token was not accepted, or (`revoked`) its
    /// seat was taken away (kicked, left, replaced).
    case closed(revoked: Bool)
    /// stdin or stdout is not a terminal: a seat can only be played full screen.
    case notATerminal

    var description: String {
        switch self {
        case .badURL(let url): "Not a box address: \(url) (expected http://HOST:PORT)"
        case .unreachable(let url, let why): "Cannot reach the box at \(url): \(why)"
        case .refused(let code, let message): Self.explain(code: code, message: message)
        case .noBox: "No Tripto box found on the network. Give its address with --url http://HOST:PORT."
        case .cannotLook(let why):
            "Cannot look for boxes on the network (\(why)). Give the box's address with --url http://HOST:PORT."
        case .severalBoxes(let boxes):
            "Several boxes found; choose one with --url:\n" + boxes.map { "  \($0)" }.joined(separator: "\n")
        case .unexpected(let detail): "Unexpected answer from the box: \(detail)"
        case .answered(let request, let status): "Unexpected answer from the box: \(request) answered \(status)"
        case .closed(let revoked):
            revoked
                ? "The box closed this seat: you were removed, left, or someone took over the role."
                : "The box did not accept this seat's token (the session may have been reset)."
        case .notATerminal:
            "This command plays a seat full screen and needs a terminal: stdin and stdout must be a tty, not a pipe, a file or /dev/null."
        }
    }

    /// The box's message, or the console's own words for the codes a terminal user can act on. A
    /// code this console does not know (a newer box's) is shown with the box's message.
    private static func explain(code: String, message: String) -> String {
        switch ErrorCode(rawValue: code) {
        case .sessionNotFound: "Session not found or expired. Check the code."
        case .sessionEnded: "That session has ended."
        case .hostRoleTaken: "This session already has a host."
        case .tvRoleTaken: "A TV is already connected to this session."
        case .nameTaken: "That name is taken in this session; choose another with --name."
        case .invalidName: "Not a usable name: \(message)"
        case .rateLimited: "Too many wrong codes; wait a minute and try again."
        case .gameFinished: "This game has just finished, and no new one opened within 3 minutes."
        // Said in full by the box (a kiosk's seat that is the box's own).
        case .forbidden: message
        case .badRequest, .badMessage, .unknownMessage, .unauthorized, .notFound, .assetNotFound, .invalidJoinToken,
            .invalidSettings, .invalidPhase, .sessionFull, .storageUnavailable, .invalidPack, .packReadOnly, nil:
            "\(message) (\(code))"
        }
    }

    /// The exit status: 2 for what the user can fix with other arguments, 64 (EX_USAGE, as for a
    /// wrong option) for a command run without a terminal, 1 for the rest.
    var exitStatus: Int32 {
        switch self {
        case .badURL, .refused, .severalBoxes, .noBox, .cannotLook: 2
        case .notATerminal: 64
        case .unreachable, .unexpected, .answered, .closed: 1
        }
    }
}
