import ArgumentParser
import Core
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// `tripto-console bots N --code CODE`: a crowd of bot players on this machine, so that one person
/// can watch a whole game with a crowd (the host on the web page or `join --as host`).
struct BotsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bots",
        abstract: "Play N bot players in a session, so one person can watch a game with a crowd.",
        discussion: """
            The bots join the session of --code as players named "Bot Astrid", "Bot Sven", … and play \
            as people would: each sees only what a player's screen shows, pulls the brake on some clues \
            after a human reaction time (a skilled bot sooner, and on earlier clues), answers its brake \
            after a few seconds of typing (rightly with a chance that grows with skill), and answers \
            most followups. To know the answers they read the packs in --packs (the box's own, e.g. \
            ./packs), matching the clue shown against the packs' destinations; without it, or for a \
            destination not there, they guess. Every bot answers the box's clock probes, and with \
            --lag every message each bot sends and receives over the WebSocket is held back by MS ± \
            JITTER milliseconds, drawn per bot and per message (messages keep their order, as on \
            TCP), so the box measures and judges a lagged link. Each bot varies a little (±0.15) around \
            --skill; --seed makes a run's choices repeatable. One line per event on standard output. \
            Ctrl-C makes every bot leave the session (PLAYER_LEAVE), then exits with status 130 (a \
            second Ctrl-C exits at once); the command also ends, with status 0, once the session has \
            ended or every bot was removed. If not even the first bot can join (unknown code, full \
            session), it says why and exits with the status `join` would.
            """
    )

    @Argument(help: "How many bots (1–50).")
    var count: Int

    @Option(help: "The session's six-character join code.")
    var code: String

    @OptionGroup var box: BoxOptions

    @Option(help: ArgumentHelp("Delay every message each way by MS ± JITTER milliseconds.", valueName: "MS[:JITTER]"))
    var lag = Lag(ms: 0)

    @Option(
        help: ArgumentHelp("How good the bots are, from 0 (slow, guessing) to 1 (quick, knowing).", valueName: "LEVEL"))
    var skill = 0.5

    @Option(help: ArgumentHelp("The box's packs folder (e.g. packs), for the bots to know answers.", valueName: "DIR"))
    var packs: String?

    @Option(help: "Seed for the bots' choices (default: a new one each run, printed).")
    var seed: UInt64?

    func validate() throws {
        guard (1...50).contains(count) else { throw ValidationError("between 1 and 50 bots, not \(count)") }
        guard (0...1).contains(skill) else { throw ValidationError("--skill is from 0 to 1, not \(skill)") }
    }

    func run() async throws {
        let crowd = BotCrowd()
        crowd.install()
        let log = BotLog()
        do {
            let api = try await box.api()
            var atlas = BotAtlas()
            var knowing = "no --packs: the bots guess"
            if let packs {
                let loaded = try BotAtlas.load(folder: packs)
                atlas = loaded.atlas
                for path in loaded.skipped { log.say("cannot read the pack \(path): skipped") }
                knowing = "\(atlas.packs.count) packs, \(atlas.destinationCount) destinations from \(packs)"
            }
            let seed = self.seed ?? UInt64.random(in: 0...999_999)
            var roster = BotRoster(skill: skill, seed: seed)
            log.say(
                "\(count) bot\(count == 1 ? "" : "s") for session \(code.uppercased()) at \(api.baseURL) · lag "
                    + (lag.isZero ? "none" : "\(lag) each way") + " · skill \(skill) · seed \(seed) · \(knowing)")
            var joined = 0
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<count where !crowd.isLeaving {
                    let profile = roster.next()
                    do throws(ConsoleError) {
                        let (seat, name) = try await join(api, roster: &roster)
                        let bot = Bot(
                            name: name, seat: seat, webSocketURL: api.webSocketURL, lag: lag, seed: profile.lagSeed)
                        joined += 1
                        log.say("\(name) joined (skill \(String(format: "%.2f", profile.skill)))")
                        crowd.add(bot)
                        let mind = BotMind(brain: BotBrain(skill: profile.skill, seed: profile.brainSeed), atlas: atlas)
                        group.addTask { _ = await bot.play(mind, log: log) }
                    } catch {
                        // Not even one: the command fails as `join` would. Otherwise the others play.
                        if joined == 0 {
                            crowd.failed(error)
                        } else {
                            log.say("no more bots could join (\(error.description)): \(joined) play")
                        }
                        break
                    }
                }
            }
            if let error = crowd.failure { throw SeatRunner.fail(error) }
            if let status = crowd.exitStatus {
                log.say("every bot has left")
                throw ExitCode(status)
            }
            log.say("the bots are done")
        } catch let error as ConsoleError {
            throw SeatRunner.fail(error)
        }
    }

    /// A seat under the roster's next free name: a name taken in the session is passed over.
    private func join(_ api: BoxAPI, roster: inout BotRoster) async throws(ConsoleError) -> (Seat, String) {
        var tries = 0
        while true {
            let name = roster.takeName()
            do {
                return (try await api.join(code: code, as: .player, name: name), name)
            } catch .refused(let refusal, _) where refusal == ErrorCode.nameTaken.rawValue && tries < 50 {
                tries += 1
            }
        }
    }
}

extension Lag: ExpressibleByArgument {
    init?(argument: String) { self.init(parsing: argument) }
    var defaultValueDescription: String { "0" }
}

/// The bots' names and what each is like, drawn from one seed: the same seed, the same crowd.
struct BotRoster {
    static let names = [
        "Astrid", "Sven", "Ingrid", "Lars", "Maja", "Nils", "Elsa", "Olle", "Freja", "Gustav", "Saga", "Erik",
        "Tove", "Arvid", "Linnea", "Hugo", "Wilma", "Axel", "Ebba", "Viktor", "Alva", "Oskar", "Stina", "Karl",
    ]

    struct Profile: Equatable {
        var skill: Double
        var brainSeed: UInt64
        var lagSeed: UInt64
    }

    let skill: Double
    private var random: SplitMix64
    private var nameIndex = 0

    init(skill: Double, seed: UInt64) {
        self.skill = skill
        random = SplitMix64(seed: seed)
    }

    /// "Bot Astrid", … and after the list "Bot Astrid 2", …: at most 20 characters, as the box wants.
    static func name(_ index: Int) -> String {
        let base = "Bot \(names[index % names.count])"
        return index < names.count ? base : "\(base) \(index / names.count + 1)"
    }

    mutating func takeName() -> String {
        defer { nameIndex += 1 }
        return Self.name(nameIndex)
    }

    /// The next bot: its skill ±0.15 around the crowd's (within 0…1), and its own seeds.
    mutating func next() -> Profile {
        let own = min(1, max(0, skill + Double.random(in: -0.15...0.15, using: &random)))
        return Profile(skill: own, brainSeed: random.next(), lagSeed: random.next())
    }
}

/// The running bots, and Ctrl-C (SIGINT, SIGTERM, SIGHUP): the first makes every bot leave, a
/// second exits at once. A second within half a second of the first is the same one delivered twice
/// (`timeout` signals the command and then its process group), not a person insisting.
final class BotCrowd: Sendable {
    private struct State {
        var bots: [Bot] = []
        var exitStatus: Int32?
        var leavingSince: ContinuousClock.Instant?
        var failure: ConsoleError?
        var sources: [any DispatchSourceSignal] = []
    }
    private let state = Mutex(State())

    var isLeaving: Bool { state.withLock { $0.exitStatus != nil } }
    var exitStatus: Int32? { state.withLock { $0.exitStatus } }
    var failure: ConsoleError? { state.withLock { $0.failure } }

    func add(_ bot: Bot) {
        let leaving = state.withLock { state in
            state.bots.append(bot)
            return state.exitStatus != nil
        }
        if leaving { bot.leave() }
    }

    func failed(_ error: ConsoleError) { state.withLock { $0.failure = error } }

    /// Every bot leaves; the process exits with `status` once they have.
    func leave(status: Int32) {
        enum Next { case leave([Bot]), wait, exit(Int32) }
        let next = state.withLock { state -> Next in
            guard let since = state.leavingSince, let first = state.exitStatus else {
                state.exitStatus = status
                state.leavingSince = .now
                return .leave(state.bots)
            }
            return ContinuousClock.now - since < .milliseconds(500) ? .wait : .exit(first)
        }
        switch next {
        case .leave(let bots): for bot in bots { bot.leave() }
        case .wait: break
        // The second signal: no more waiting.
        case .exit(let status): exit(status)
        }
    }

    func install() {
        state.withLock { state in
            for (signalNumber, status) in [(SIGINT, Int32(130)), (SIGTERM, 143), (SIGHUP, 129)] {
                signal(signalNumber, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
                source.setEventHandler { [weak self] in self?.leave(status: status) }
                source.resume()
                state.sources.append(source)
            }
        }
    }
}
