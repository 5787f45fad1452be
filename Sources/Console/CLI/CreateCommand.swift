import ArgumentParser

/// `tripto-console create --as host|tv`: a new session, with this terminal in its first seat.
struct CreateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create",
        abstract: "Create a new session and take its host or TV seat.",
        discussion: "A session created by the TV has no host until someone joins it with --as host."
    )

    @OptionGroup var box: BoxOptions

    @Option(name: .customLong("as"), help: ArgumentHelp("host or tv.", valueName: "role"))
    var role: SeatRole = .host

    func validate() throws {
        guard role != .player else { throw ValidationError("a session is created by a host or a TV; players join") }
    }

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
