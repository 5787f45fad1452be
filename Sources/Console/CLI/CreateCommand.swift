import ArgumentParser
import Core

/// `tripto-console create --as host|tv|player`: a new session, with this terminal in its first seat.
struct CreateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create",
        abstract: "Create a new session and take its host, TV or first player's seat.",
        discussion: """
            A session created by the TV has no host until someone joins it with --as host. One created \
            --as player has no host at all: everyone plays, the game moves on by itself, and the creator \
            is its captain (\(ConsoleState.captainKeys)).
            """
    )

    @OptionGroup var box: BoxOptions

    enum CreatorRole: String, ExpressibleByArgument, CaseIterable, Sendable {
        case host, tv, player

        var role: Role {
            switch self {
            case .host: .host
            case .tv: .tv
            case .player: .player
            }
        }
    }

    @Option(
        name: .customLong("as"), help: ArgumentHelp("host, tv or player (everyone plays, no host).", valueName: "role"))
    var role: CreatorRole = .host

    @Option(help: "Your name in the game (with --as player: required, 1–20 characters).")
    var name: String?

    func validate() throws {
        if role == .player, (name ?? "").isEmpty { throw ValidationError("a player needs --name") }
    }

    func run() async throws {
        try SeatRunner.requireTerminal()
        do {
            let api = try await box.api()
            let seat = try await api.create(as: role.role, name: name)
            let store = SeatStore.standard
            store.keep(seat, box: api.baseURL, name: role == .player ? name : nil)
            try await SeatRunner.play(seat, api: api, store: store)
        } catch let error as ConsoleError {
            throw SeatRunner.fail(error)
        }
    }
}
