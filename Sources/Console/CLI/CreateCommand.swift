import ArgumentParser
import Core

/// `tripto-console create --as host|tv`: a new session, with this terminal in its first seat.
struct CreateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create",
        abstract: "Create a new session and take its host or TV seat.",
        discussion: "A session created by the TV has no host until someone joins it with --as host."
    )

    @OptionGroup var box: BoxOptions

    /// A session is created by its host or its TV; players join one.
    enum CreatorRole: String, ExpressibleByArgument, CaseIterable, Sendable {
        case host, tv

        var role: Role { self == .host ? .host : .tv }
    }

    @Option(name: .customLong("as"), help: ArgumentHelp("host or tv (players join a session).", valueName: "role"))
    var role: CreatorRole = .host

    func run() async throws {
        try SeatRunner.requireTerminal()
        do {
            let api = try await box.api()
            let seat = try await api.create(as: role.role)
            let store = SeatStore.standard
            store.keep(seat, box: api.baseURL, name: nil)
            try await SeatRunner.play(seat, api: api, store: store)
        } catch let error as ConsoleError {
            throw SeatRunner.fail(error)
        }
    }
}
