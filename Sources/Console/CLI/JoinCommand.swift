import ArgumentParser

/// `tripto-console join CODE --as player|host|tv [--name NAME]`.
struct JoinCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "join",
        abstract: "Join a session by its code, as a player, the host or the TV.",
        discussion: """
            PLAYER: Space or Enter pulls the brake; type an answer and press Enter. \
            HOST: \(ConsoleState.hostHelp). TV: shows the join QR code, the clues and the scores. \
            Exits with status 2 and a message if the code is unknown or the seat is taken.
            """
    )

    @Argument(help: "The session's six-character join code (case and dashes do not matter).")
    var code: String

    @OptionGroup var box: BoxOptions

    @Option(name: .customLong("as"), help: ArgumentHelp("player, host or tv.", valueName: "role"))
    var role: SeatRole = .player

    @Option(help: "Your name in the game (players: required, 1–20 characters).")
    var name: String?

    func validate() throws {
        if role == .player, (name ?? "").isEmpty { throw ValidationError("a player needs --name") }
    }

    func run() async throws {
        do {
            let api = try await box.api()
            let seat = try await api.join(code: code, as: role.role, name: name)
            try await SeatRunner.play(seat, api: api)
        } catch let error as ConsoleError {
            throw SeatRunner.fail(error)
        }
    }
}
