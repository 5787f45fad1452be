import ArgumentParser
import Core
import Foundation

/// `tripto-console kiosk`: the TV of a `tripto serve --kiosk` box on the box's own screen, session
/// after session, for as long as it runs.
struct KioskCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kiosk",
        abstract: "Show the TV of a --kiosk box on this terminal (run it on the box itself, e.g. tty1).",
        discussion: """
            Takes the kiosk's TV seat from GET /v1/kiosk, which the box answers only over loopback, and \
            takes the next one whenever a session ends. Waits for the box while it is not up yet, or not \
            running --kiosk, and says so.
            """
    )

    @Option(help: "The box's address on this machine.")
    var url = "http://127.0.0.1:8080"

    func validate() throws {
        guard url.hasPrefix("http://") || url.hasPrefix("https://") else {
            throw ValidationError(ConsoleError.badURL(url).description)
        }
    }

    /// What to do when the kiosk's seat could not be had.
    enum Wait: Equatable {
        /// Ask again in a moment, having said this (once) on the terminal.
        case retry(String)
        case leave(ConsoleError)
    }

    /// Whatever might change by itself is waited for, saying what is awaited, so that the screen is
    /// never blank: a box that is starting (unreachable), between two kiosk sessions (503), or not
    /// running --kiosk (404: it may be restarted with it). Only what waiting cannot mend leaves.
    static func wait(after error: ConsoleError, url: String) -> Wait {
        switch error {
        case .unreachable:
            return .retry("waiting for the box at \(url) (not reachable yet)…")
        case .answered(_, status: 404):
            return .retry(
                "this box is not running --kiosk (start it with tripto serve --kiosk); asking again every 2 s…")
        case .refused(code: ErrorCode.storageUnavailable.rawValue, _):
            return .retry("waiting for the box's kiosk session…")
        case .refused(code: ErrorCode.forbidden.rawValue, _):
            return .leave(
                .refused(
                    code: ErrorCode.forbidden.rawValue,
                    message:
                        "The box at \(url) gives its kiosk seat only to its own screen (loopback): run tripto-console kiosk on the box itself, with --url http://127.0.0.1:PORT."
                ))
        case .refused, .badURL:
            return .leave(error)
        case .noBox, .cannotLook, .severalBoxes, .unexpected, .answered, .closed, .notATerminal:
            return .retry("waiting for the box at \(url) (\(error.description))…")
        }
    }

    func run() async throws {
        try SeatRunner.requireTerminal()
        Leaving.install(nil)
        let api = BoxAPI(baseURL: url)
        var said: String?
        while true {
            let seat: Seat
            do {
                seat = try await api.kioskSeat()
            } catch {
                switch Self.wait(after: error, url: url) {
                case .leave(let error): throw SeatRunner.fail(error)
                case .retry(let message):
                    if message != said { print("tripto-console: \(message)") }
                    said = message
                }
                try await Task.sleep(for: .seconds(2))
                continue
            }
            said = nil
            let terminal = Terminal()
            // Installed first: a signal while the terminal is being set up still puts it back.
            Leaving.install(terminal)
            do {
                try terminal.enter()
            } catch {
                throw SeatRunner.fail(.notATerminal)
            }
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
