import ArgumentParser
import CTriptoSystem
import Core
import Foundation

/// `tripto-bench`: plays scripted games on the release `tripto serve` and on the Python broadcast
/// baseline with the same clients, and writes the comparison to bench/results.
@main
struct TriptoBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tripto-bench", abstract: "Load benchmark of the Tripto box against a broadcast baseline.")

    @Option(name: .customLong("sessions"), help: "Sessions (tables) playing at once (0 skips the tables).")
    var sessions = 200
    @Option(name: .customLong("players"), help: "Players per session (each table also has a host and a TV).")
    var players = 10
    @Option(help: "Players in the one-session brake scenario (0 skips it).")
    var crowd = 200
    @Option(help: "Games each table plays.")
    var games = 1
    @Option(
        help: ArgumentHelp(
            "Games the crowd plays.",
            discussion:
                "On the box one brake per game is won: with the default steps, the pulls at later clues fall in "
                + "their players' 2 s cooldown. "
                + "Each brake is timed at every seat, so the brake p99 is set by the slowest brakes: "
                + "it takes several games to be more than one brake's luck."))
    var crowdGames = 10
    @Option(help: "How long a host waits on each screen, in milliseconds.")
    var stepMs = 300
    @Option(
        help: ArgumentHelp(
            "How long a player whose brake was accepted takes to answer, in milliseconds "
                + "(default: the host's step, at most 9000).",
            discussion:
                "0 answers the moment BRAKE_ACCEPTED arrives. The game then goes on to the next clue, and with "
                + "everyone pulling, that clue's rush overlaps the brake still on its way to the last seats."))
    var answerMs: Int?
    @Option(help: "Upper bound on each scenario's play, in seconds.")
    var timeout = 180
    @Flag(help: "A tiny run for the tests: 3 × 4 players, a crowd of 6.")
    var smoke = false
    @Flag(help: "Clients take whole STATE_SNAPSHOTs (as the console does), not STATE_PATCH (as the web pages do).")
    var fullSnapshots = false
    @Flag(help: "Skip the Python baseline.")
    var noBaseline = false
    @Option(help: "The tripto binary to measure.")
    var tripto = ".build/release/tripto"
    @Option(help: "Build configuration of that binary, for the report.")
    var build = "release"
    @Option(help: "Content packs for the box.")
    var packs = "packs"
    @Option(help: "Python with the websockets package, for the baseline.")
    var python = ".venv/bin/python"
    @Option(help: "The baseline server script.")
    var baseline = "bench/baseline/broadcast.py"
    @Option(help: "Where the report goes.")
    var output = "bench/results"
    @Option(help: "The source revision measured, for the report and its file name (scripts/bench passes git's).")
    var revision = "unknown"
    @Option(
        help: ArgumentHelp(
            "Optimisations the box runs without, comma-separated (loop-executor, short-slice, fd-table).",
            discussion:
                "Passed to the box as TRIPTO_DISABLE, to measure what each is worth (docs/performance.md); "
                + "the load generator keeps them all. The report and its file name say which were off."))
    var disable = ""

    mutating func run() async throws {
        if smoke {
            sessions = 3
            players = 4
            crowd = 6
            stepMs = 100
            crowdGames = 1
            timeout = 60
        }
        if revision.isEmpty { revision = "unknown" }
        // In this process the variable would switch the load generator's own open-file preparation off.
        guard ProcessInfo.processInfo.environment["TRIPTO_DISABLE"] == nil else {
            throw ValidationError(
                "TRIPTO_DISABLE is set: pass --disable to tripto-bench instead, which sets it for the box only.")
        }
        let disabled = disable.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter {
            !$0.isEmpty
        }
        guard sessions > 0 || crowd > 0 else {
            throw ValidationError("--sessions 0 and --crowd 0 leave nothing to run.")
        }
        guard stepMs >= 0 else { throw ValidationError("--step-ms must be 0 or more.") }
        // The box's deadline for the answer starts when it accepts the brake, before the player hears of it.
        let answerLimit = Table.brakeAnswerMs - 1_000
        let answerMs = self.answerMs ?? min(stepMs, answerLimit)
        guard (0...answerLimit).contains(answerMs) else {
            throw ValidationError(
                "--answer-ms must be from 0 to \(answerLimit): "
                    + "the box releases a brake not answered within \(Table.brakeAnswerMs / 1_000) s.")
        }
        var scenarios: [Scenario] = []
        if sessions > 0 {
            scenarios.append(
                Scenario(
                    name: "tables", sessions: sessions, players: players, games: games, everyoneBrakes: false,
                    patches: !fullSnapshots, stepMs: stepMs, answerMs: answerMs, timeoutSeconds: timeout))
        }
        if crowd > 0 {
            scenarios.append(
                Scenario(
                    name: "crowd", sessions: 1, players: crowd, games: crowdGames, everyoneBrakes: true,
                    patches: !fullSnapshots, stepMs: stepMs, answerMs: answerMs, timeoutSeconds: timeout))
        }
        // Every socket is an open file, here and in the server (which inherits the limit). CTriptoSystem
        // raised the soft limit to the hard one, and grew the table, before main.
        let sockets = scenarios.map(\.sockets).max() ?? 0
        let openFiles = Int(tripto_open_file_limit())
        guard openFiles < 0 || openFiles >= sockets + 256 else {
            throw ValidationError(
                "\(sockets) sockets need more open files than the \(openFiles) allowed: "
                    + "raise the hard limit (ulimit -Hn).")
        }
        // Another process at work (a server left over from an earlier run, a build) skews every figure.
        let busyBefore = await Machine.busyPercent(over: 1)
        if busyBefore > Machine.busyLimitPercent {
            print(String(format: "warning: %.0f %% of the machine's CPU is in use before the run", busyBefore))
        }
        let launch = RunningServer.Launch(
            tripto: tripto, packs: packs, python: python, baselineScript: baseline,
            maxPlayers: max(50, players, crowd), disabled: disabled)
        let contenders: [Contender] = noBaseline ? [.tripto] : [.tripto, .baseline]
        var outcomes: [Outcome] = []
        for scenario in scenarios {
            for contender in contenders {
                print("== \(scenario.name) \(scenario.sessions)×\(scenario.players) on \(contender.rawValue)")
                outcomes.append(try await scenario.run(on: contender, launch: launch) { print("   \($0)") })
            }
        }

        // The fair brake's lab: simulated links, the box's own judge; a fixed seed, so runs compare.
        var lab = BrakeLab(seed: 2026)
        let fairness = lab.run(contests: 600, levelPresses: 400)

        let stamp = ISO8601DateFormatter().string(from: Date())
        let report = Report(
            date: stamp, revision: revision, disabled: disabled,
            machine: Machine.describe(build: build, busyBeforePercent: busyBefore), outcomes: outcomes,
            fairness: fairness)
        let day = String(stamp.prefix(10))
        let size = sessions > 0 ? "\(sessions)x\(players)" : "crowd\(crowd)"
        // In the file name, a character other than a letter, a digit, '.', '_' or '-' (a tag's '/') is a '-'.
        let tag = String(
            revision.map { (character: Character) -> Character in
                character.isLetter || character.isNumber || "._-".contains(character) ? character : "-"
            })
        let base = URL(fileURLWithPath: output).appendingPathComponent(
            "\(day)-\(tag)-\(size)\(disabled.isEmpty ? "" : "-off-" + disabled.joined(separator: "-"))\(smoke ? "-smoke" : "")"
        )
        try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(report).write(to: base.appendingPathExtension("json"))
        try report.markdown.write(to: base.appendingPathExtension("md"), atomically: true, encoding: .utf8)
        print(report.markdown)
        print("report: \(base.path).md and .json")
        // Loss is a failure whatever the timings say.
        let broken = outcomes.filter { $0.lost > 0 || $0.outOfOrder > 0 || $0.tablesFinished < $0.scenario.sessions }
        if !broken.isEmpty {
            print("FAILED: events lost, out of order, or tables unfinished")
            throw ExitCode(1)
        }
    }
}
