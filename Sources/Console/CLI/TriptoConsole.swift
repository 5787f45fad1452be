import ArgumentParser
import Core
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

@main
struct TriptoConsole: AsyncParsableCommand {
    /// The console is released with the box, under the same version.
    static let version = triptoVersion

    static let configuration = CommandConfiguration(
        commandName: "tripto-console",
        abstract: "Play Tripto from a terminal: as a player, as the host, or as the TV.",
        discussion: """
            Speaks the same contract as the web pages, over the box's WebSocket. Without --url the box is \
            found on the LAN by mDNS (a single box is used without asking). Full screen, plain ANSI: works \
            in 80×24 and larger, on a Linux tty, in tmux and over ssh. Ctrl-C always leaves.
            """,
        version: version,
        subcommands: [DiscoverCommand.self, CreateCommand.self, JoinCommand.self, KioskCommand.self, BotsCommand.self]
    )
}

/// The three seats, as the command line spells them.
enum SeatRole: String, ExpressibleByArgument, CaseIterable, Sendable {
    case player, host, tv

    var role: Role {
        switch self {
        case .player: .player
        case .host: .host
        case .tv: .tv
        }
    }
}

/// Where the box is: `--url`, or found on the LAN.
struct BoxOptions: ParsableArguments {
    @Option(help: "The box's address, e.g. http://192.168.1.20:8080 (skips discovery).")
    var url: String?

    @Option(help: "Seconds to look for boxes on the LAN when --url is not given.")
    var discoveryTimeout: Double = 2

    func api() async throws(ConsoleError) -> BoxAPI {
        if let url {
            guard url.hasPrefix("http://") || url.hasPrefix("https://") else { throw .badURL(url) }
            return BoxAPI(baseURL: url)
        }
        return BoxAPI(baseURL: try await BoxFinder.find(timeout: discoveryTimeout))
    }
}

/// Runs a seat full screen and turns how it ended into the exit status and a last line on the
/// normal screen.
enum SeatRunner {
    /// Checked before anything is asked of the box: a console that could not show a seat must not
    /// take one (a player would be added to the game, offline, under their name).
    static func requireTerminal() throws {
        guard Terminal.isAvailable else { throw fail(.notATerminal) }
    }

    /// `store` forgets the seat once the box is done with it (the session ended, the seat was
    /// taken away); a console that was only closed keeps it, to take again. Returns false, rather
    /// than failing, when `kept` and the box turned the seat away before it was ever shown: the
    /// caller takes a new one.
    @discardableResult
    static func play(_ seat: Seat, api: BoxAPI, store: SeatStore, kept: Bool = false) async throws -> Bool {
        let terminal = Terminal()
        // Installed first: a signal while the terminal is being set up still puts it back.
        Leaving.install(terminal)
        do {
            try terminal.enter()
        } catch {
            throw fail(.notATerminal)
        }
        let outcome = await Play.run(seat: seat, api: api, terminal: terminal)
        terminal.restore()
        // Anything but leaving means the box is done with the seat.
        if case .left = outcome {} else { store.forget(seat, box: api.baseURL) }
        switch outcome {
        case .left(let status):
            if status != 0 { throw ExitCode(status) }
        case .sessionEnded(let reason):
            print("tripto-console: \(Screen.ended(reason))")
        case .turnedAway(let error):
            if kept { return false }
            throw fail(error)
        case .closed(let error):
            throw fail(error)
        }
        return true
    }

    /// Prints the error for a person and gives the exit status to leave with.
    static func fail(_ error: ConsoleError) -> ExitCode {
        FileHandle.standardError.write(Data("tripto-console: \(error.description)\n".utf8))
        return ExitCode(error.exitStatus)
    }
}

/// SIGINT, SIGTERM and SIGHUP from outside (kill, a closed ssh session): the terminal is put back first.
enum Leaving {
    private static let state = Mutex<(terminal: Terminal?, sources: [any DispatchSourceSignal])>((nil, []))

    /// Makes `terminal` the one to restore (nil: none yet, while waiting for a seat, so that Ctrl-C
    /// there still ends with 130 rather than killing the process and the shell's command list after
    /// it); the handlers are installed once.
    static func install(_ terminal: Terminal?) {
        state.withLock { state in
            state.terminal = terminal
            guard state.sources.isEmpty else { return }
            for (signalNumber, status) in [(SIGINT, Int32(130)), (SIGTERM, 143), (SIGHUP, 129)] {
                signal(signalNumber, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
                source.setEventHandler {
                    Leaving.state.withLock { $0.terminal }?.restore()
                    exit(status)
                }
                source.resume()
                state.sources.append(source)
            }
        }
    }
}
