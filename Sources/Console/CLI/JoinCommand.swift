import ArgumentParser
import Core

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
            joins while a game is finishing waits, up to 3 minutes, for the next game's lobby.
            """
    )

    @Argument(help: "The session's six-character join code (case and dashes do not matter).")
    var code: String

    @OptionGroup var box: BoxOptions

    @Option(name: .customLong("as"), help: ArgumentHelp("player, host or tv.", valueName: "role"))
    var role: SeatRole = .player

    @Option(help: "Your name in the game (players: required, 1–20 characters).")
    var name: String?

    @Option(
        name: .customLong("staff-pin"),
        help: ArgumentHelp("With --as host: the venue's staff PIN, to host a kiosk's game.", valueName: "PIN"))
    var staffPin: String?

    func validate() throws {
        if role == .player, (name ?? "").isEmpty { throw ValidationError("a player needs --name") }
        if staffPin != nil, role != .host { throw ValidationError("--staff-pin is for --as host") }
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

    /// How long a player waits between two tries while a game has just finished, and for how long
    /// in all: a --kiosk box opens its next lobby some 20–30 s after a game; a host may take longer.
    static let finishedRetry = Duration.seconds(2)
    static let finishedWait = Duration.seconds(180)

    /// Takes a new seat. A player turned away because the game has just finished (409 GAME_FINISHED,
    /// its final standings) waits for the next lobby, which a --kiosk box opens by itself and a host
    /// with `t`, under the same code; after `finishedWait` it leaves with the box's word. A box that
    /// cannot be reached for a moment during that wait is tried again.
    private func takeSeat(_ api: BoxAPI) async throws(ConsoleError) -> Seat {
        /// The refusal being waited out, once there is one.
        var waiting: ConsoleError?
        let deadline = ContinuousClock.now + Self.finishedWait
        Leaving.install(nil)
        while true {
            do {
                return try await api.join(code: code, as: role.role, name: name, staffPin: staffPin)
            } catch .refused(let refusal, let message) where refusal == ErrorCode.gameFinished.rawValue {
                if waiting == nil {
                    print(
                        "tripto-console: the game has just finished; joining as soon as the next game's lobby opens "
                            + "(waiting up to 3 minutes; Ctrl-C gives up).")
                }
                waiting = .refused(code: refusal, message: message)
            } catch .unreachable(_, _) where waiting != nil {
                // The box out of reach for a moment while waiting: tried again with the rest.
            }
            guard let refusal = waiting else { continue }
            guard ContinuousClock.now < deadline else { throw refusal }
            do {
                try await Task.sleep(for: Self.finishedRetry)
            } catch {
                throw refusal
            }
        }
    }
}
