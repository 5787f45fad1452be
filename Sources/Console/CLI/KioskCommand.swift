import ArgumentParser
import Foundation

/// `tripto-console kiosk`: the TV of a `tripto serve --kiosk` box on the box's own screen, session
/// after session, for as long as it runs.
struct KioskCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kiosk",
        abstract: "Show the TV of a --kiosk box on this terminal (run it on the box itself, e.g. tty1).",
        discussion: """
            Takes the kiosk's TV seat from GET /v1/kiosk, which the box answers only over loopback, and \
            takes the next one whenever a session ends. Waits for the box while it is not up yet.
            """
    )

    @Option(help: "The box's address on this machine.")
    var url = "http://127.0.0.1:8080"

    func run() async throws {
        try SeatRunner.requireTerminal()
        let api = BoxAPI(baseURL: url)
        while true {
            let seat: Seat
            do {
                seat = try await api.kioskSeat()
            } catch {
                if case .refused(let code, _) = error, code != "STORAGE_UNAVAILABLE" {
                    throw SeatRunner.fail(error)
                }
                // The box is starting, or between two kiosk sessions.
                try await Task.sleep(for: .seconds(2))
                continue
            }
            let terminal = Terminal()
            do {
                try terminal.enter()
            } catch {
                throw SeatRunner.fail(.notATerminal)
            }
            Leaving.install(terminal)
            let outcome = await Play.run(seat: seat, api: api, terminal: terminal)
            terminal.restore()
            switch outcome {
            case .left(let status): throw ExitCode(status)
            case .sessionEnded: continue
            case .closed, .turnedAway:
                // Closed for good (the seat is no longer this screen's): not again at once.
                try await Task.sleep(for: .seconds(1))
            }
        }
    }
}
