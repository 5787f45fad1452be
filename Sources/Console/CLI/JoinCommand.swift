import ArgumentParser

/// `tripto-console join CODE --as player|host|tv [--name NAME]`.
struct JoinCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "join",
        abstract: "Join a session by its code, as a player, the host or the TV.",
        discussion: """
            PLAYER: Space or Enter pulls the brake; type an answer and press Enter. \
            HOST: \(ConsoleState.hostHelp). TV: shows the join QR code, the clues and the scores. \
            The seat is kept (in $XDG_STATE_HOME/tripto-console, by default ~/.local/state): the same \
            command takes it again after the console was closed, with its points. \
            Exits with status 2 and a message if the code is unknown or the seat is taken. A player who \
            joins while a game without a host (a --kiosk box's) is finishing waits for its next lobby.
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
        try SeatRunner.requireTerminal()
        do {
            let api = try await box.api()
            let store = SeatStore.standard
            // A kept seat first, unless the box says its session is gone; if the box no longer
            // knows it (removed meanwhile), `play` forgets it and a new one is taken.
            if let kept = store.seat(box: api.baseURL, code: code, role: role.role, name: name) {
                if await api.isLive(kept) == false {
                    store.forget(kept, box: api.baseURL)
                } else if try await SeatRunner.play(kept, api: api, store: store, kept: true) {
                    return
                }
            }
            let seat = try await takeSeat(api)
            store.keep(seat, box: api.baseURL, name: name)
            try await SeatRunner.play(seat, api: api, store: store)
        } catch let error as ConsoleError {
            throw SeatRunner.fail(error)
        }
    }

    /// How long a player waits between two tries while a game without a host has just finished.
    static let finishedRetry = Duration.seconds(2)

    /// Takes a new seat. A player turned away because the game has just finished (409 GAME_FINISHED,
    /// its final standings) waits for the next lobby when the game has no host: a --kiosk box (whose
    /// games never have one) opens it by itself some 20–30 s later, under the same code. With a host,
    /// only the host can start again, so the console leaves with the box's word.
    private func takeSeat(_ api: BoxAPI) async throws(ConsoleError) -> Seat {
        var told = false
        Leaving.install(nil)
        while true {
            do {
                return try await api.join(code: code, as: role.role, name: name)
            } catch .refused(let refusal, let message) where refusal == "GAME_FINISHED" {
                guard try await api.lookup(code: code).hasHost == false else {
                    throw .refused(code: refusal, message: message)
                }
                if !told {
                    print(
                        "tripto-console: the game has just finished; joining as soon as the next one's lobby opens "
                            + "(it opens by itself). Ctrl-C gives up.")
                    told = true
                }
                try? await Task.sleep(for: Self.finishedRetry)
            }
        }
    }
}
