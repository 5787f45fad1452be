import Core
import Foundation

/// The machine a run was made on, for reading its numbers later.
struct Machine: Codable, Sendable {
    var cores: Int
    var cpuModel: String
    var memoryGiB: Double
    var kernel: String
    var swift: String
    var build: String
    /// How much of the machine's CPU other processes used in the second before the run.
    var busyBeforePercent: Double
    /// Above this, the report says the machine was not idle.
    static let busyLimitPercent = 10.0

    static func describe(build: String, busyBeforePercent: Double) -> Machine {
        let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let model =
            cpuinfo.split(separator: "\n").first { $0.hasPrefix("model name") }
            .flatMap { $0.split(separator: ":", maxSplits: 1).last }
            .map { $0.trimmingCharacters(in: .whitespaces) } ?? "unknown"
        let meminfo = (try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8)) ?? ""
        let kilobytes =
            meminfo.split(separator: "\n").first { $0.hasPrefix("MemTotal:") }
            .flatMap { $0.split(separator: " ").dropFirst().first }.flatMap { Double($0) } ?? 0
        let kernel =
            (try? String(contentsOfFile: "/proc/sys/kernel/osrelease", encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines) ?? "unknown"
        return Machine(
            cores: ProcessInfo.processInfo.activeProcessorCount, cpuModel: model,
            memoryGiB: (kilobytes / 1_048_576 * 10).rounded() / 10, kernel: kernel, swift: swiftVersion(),
            build: build, busyBeforePercent: busyBeforePercent)
    }

    /// The share of all cores in use over `seconds` (from /proc/stat): what else is running.
    static func busyPercent(over seconds: Double) async -> Double {
        func sample() -> (busy: Double, total: Double)? {
            guard let stat = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
                let line = stat.split(separator: "\n").first, line.hasPrefix("cpu ")
            else { return nil }
            // user nice system idle iowait irq softirq steal ...
            let fields = line.split(separator: " ").dropFirst().compactMap { Double($0) }
            guard fields.count >= 5 else { return nil }
            let total = fields.prefix(8).reduce(0, +)
            return (total - fields[3] - fields[4], total)
        }
        guard let before = sample() else { return 0 }
        try? await Task.sleep(for: .seconds(seconds))
        guard let after = sample(), after.total > before.total else { return 0 }
        return (after.busy - before.busy) / (after.total - before.total) * 100
    }

    private static func swiftVersion() -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["swift", "--version"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return "unknown" }
        // Read to the end rather than wait for the exit, which Foundation does not always notice.
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return text.split(separator: "\n").first.map(String.init) ?? "unknown"
    }
}

/// A whole run: the machine, and every scenario on both servers.
struct Report: Codable, Sendable {
    var date: String
    /// The source the measured binaries were built from (`git describe --always --dirty`), or "unknown".
    var revision: String
    /// Optimisations the box ran without (`--disable`, its TRIPTO_DISABLE); empty for the box as shipped.
    var disabled: [String]
    var machine: Machine
    var outcomes: [Outcome]
    /// The fair brake's latency lab (`BrakeLab`), run in the same report.
    var fairness: BrakeLab.Report?

    /// The issue's targets, each checked against this run.
    struct Verdict: Codable, Sendable {
        var target: String
        var measured: String
        var met: Bool
    }

    var verdicts: [Verdict] {
        var verdicts: [Verdict] = []
        let ours = outcomes.filter { $0.contender == .tripto }
        let tables = ours.first { !$0.scenario.everyoneBrakes }
        let crowd = ours.first { $0.scenario.everyoneBrakes }
        if let tables {
            verdicts.append(
                Verdict(
                    target: "\(tables.scenario.sessions) × \(tables.scenario.players): fan-out p99 < 25 ms",
                    measured: ms(tables.fanout.p99), met: tables.fanout.p99 < 25))
            verdicts.append(
                Verdict(
                    target: "\(tables.scenario.sessions) × \(tables.scenario.players): zero loss, all tables finish",
                    measured: "\(tables.lost) lost, \(tables.outOfOrder) out of order, "
                        + "\(tables.tablesFinished)/\(tables.scenario.sessions) finished",
                    met: tables.lost == 0 && tables.outOfOrder == 0
                        && tables.tablesFinished == tables.scenario.sessions))
        }
        if let crowd {
            verdicts.append(
                Verdict(
                    // Heard by every seat, so judged at each brake's last seat.
                    // The arbitration window (at most 150 ms) comes on top: a pull waits for those in flight.
                    target: "1 × \(crowd.scenario.players): BRAKE_ACCEPTED heard by every seat, "
                        + "last seat p99 < 10 ms + the arbitration window (≤ 150 ms)",
                    measured:
                        "\(ms(crowd.brakeLastSeat.p99)) at the last seat (\(ms(crowd.brake.p99)) over every seat)",
                    met: crowd.brake.count > 0 && crowd.brakeLastSeat.p99 < 160))
        }
        if let first = ours.first {
            verdicts.append(
                Verdict(
                    target: "idle RSS < 40 MB", measured: mb(first.idleRssBytes), met: first.idleRssBytes < 40_000_000))
            let perSocket = ours.map(\.rssPerSocketBytes).max() ?? 0
            verdicts.append(
                Verdict(
                    target: "< 30 KB more RSS per connected client", measured: kb(perSocket), met: perSocket < 30_000))
            let cold = ours.map(\.coldStartMs).max() ?? 0
            verdicts.append(Verdict(target: "cold start < 500 ms", measured: ms(cold), met: cold < 500))
        }
        if let fairness {
            let clear = fairness.clearWinner
            verdicts.append(
                Verdict(
                    target: "fair brake: ≥ 99 % correct winners when the true lead is ≥ 30 ms",
                    measured: percent(clear.compensatedShare) + " judged by press time, "
                        + percent(clear.byArrivalShare) + " by arrival (\(clear.contests) contests)",
                    met: clear.contests > 0 && clear.compensatedShare >= 0.99))
            verdicts.append(
                Verdict(
                    target: "fair brake: every forged early claim clamped",
                    measured: "\(fairness.forgedClamped) of \(fairness.forged)",
                    met: fairness.forged > 0 && fairness.forgedClamped == fairness.forged))
        }
        // Compared with the baseline only where both do the same work: fan-out and the brake at crowd
        // scale. Its create and join save nothing, the box's every command (docs/performance.md).
        if let crowd,
            let baseline = outcomes.first(where: {
                $0.contender == .baseline && $0.scenario.name == crowd.scenario.name
            })
        {
            let worse = zip(sharedWorkFigures(crowd), sharedWorkFigures(baseline)).filter { pair in pair.0.1 > pair.1.1
            }
            .map { $0.0.0 }
            verdicts.append(
                Verdict(
                    target: "\(crowd.scenario.name): fan-out and brake ahead of the baseline",
                    measured: worse.isEmpty ? "all ahead or equal" : "behind: " + worse.joined(separator: ", "),
                    met: worse.isEmpty))
        }
        return verdicts
    }

    /// The latency figures of the work both servers do: the fan-out and the brake.
    private func sharedWorkFigures(_ outcome: Outcome) -> [(String, Double)] {
        latencyFigures(outcome).filter { !$0.0.hasPrefix("create") && !$0.0.hasPrefix("join") }
    }

    func latencyFigures(_ outcome: Outcome) -> [(String, Double)] {
        var figures = [
            ("create p50", outcome.create.p50), ("create p99", outcome.create.p99),
            ("join p50", outcome.join.p50), ("join p99", outcome.join.p99),
            ("fan-out p50", outcome.fanout.p50), ("fan-out p99", outcome.fanout.p99),
            ("fan-out max", outcome.fanout.max),
        ]
        if outcome.brake.count > 0 {
            figures += [
                ("brake p50", outcome.brake.p50), ("brake p99", outcome.brake.p99),
                ("brake, last seat p50", outcome.brakeLastSeat.p50),
                ("brake, last seat p99", outcome.brakeLastSeat.p99),
            ]
        }
        return figures
    }

    var markdown: String {
        var lines = ["# Tripto box load benchmark, \(date)", ""]
        lines += [
            "Revision: \(revision). Optimisations off: "
                + (disabled.isEmpty ? "none (the box as shipped)" : disabled.joined(separator: ", ")) + ".",
            "",
            "Machine: \(machine.cores) cores, \(machine.cpuModel), \(machine.memoryGiB) GiB, Linux \(machine.kernel); "
                + "\(machine.swift); `tripto` \(machine.build) build. Server and load generator share the machine. "
                + String(format: "Before the run, %.0f %% of its CPU was in use.", machine.busyBeforePercent),
            "",
        ]
        if machine.busyBeforePercent > Machine.busyLimitPercent {
            lines += ["**The machine was not idle before the run: its figures are not comparable.**", ""]
        }
        let names = outcomes.map(\.scenario.name).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        for name in names {
            let ours = outcomes.first { $0.scenario.name == name && $0.contender == .tripto }
            let theirs = outcomes.first { $0.scenario.name == name && $0.contender == .baseline }
            guard let scenario = (ours ?? theirs)?.scenario else { continue }
            lines += [
                "## \(name): \(scenario.sessions) × \(scenario.players) players (\(scenario.sockets) sockets), "
                    + "\(scenario.games) game(s) each, host step \(scenario.stepMs) ms"
                    + (scenario.everyoneBrakes ? ", every player pulls at every clue" : "")
                    + (scenario.answerMs > 0
                        ? ", a brake is answered \(scenario.answerMs) ms after it is accepted"
                        : ", a brake is answered the moment it is accepted")
                    + (scenario.patches
                        ? "; the clients take STATE_PATCH from the box" : "; the clients take whole snapshots"),
                "",
                "| figure | tripto | baseline | tripto / baseline |",
                "|---|---:|---:|---:|",
            ]
            let ourFigures = ours.map(latencyFigures) ?? []
            let theirFigures = theirs.map(latencyFigures) ?? []
            for (index, figure) in (ours.map(latencyFigures) ?? theirFigures).enumerated() {
                let mine = index < ourFigures.count ? ourFigures[index].1 : nil
                let other = index < theirFigures.count ? theirFigures[index].1 : nil
                lines.append("| \(figure.0) (ms) | \(cell(mine)) | \(cell(other)) | \(ratio(mine, other)) |")
            }
            func row(_ title: String, _ value: (Outcome) -> String) {
                lines.append("| \(title) | \(ours.map(value) ?? "–") | \(theirs.map(value) ?? "–") | |")
            }
            row("events expected / lost / out of order") { "\($0.eventsExpected) / \($0.lost) / \($0.outOfOrder)" }
            row("brakes timed (pulls won / seats that heard them)") { "\($0.brakeLastSeat.count) / \($0.brake.count)" }
            row("messages stamped earlier than the one before") { "\($0.stampsBack)" }
            row("tables finished") { "\($0.tablesFinished) / \($0.scenario.sessions)" }
            row("sockets connected") { "\($0.socketsConnected)" }
            row("cold start (ms)") { String(format: "%.0f", $0.coldStartMs) }
            row("idle RSS") { mb($0.idleRssBytes) }
            row("idle CPU") { String(format: "%.1f %%", $0.idleCpuPercent) }
            row("RSS with every socket connected") { mb($0.connectedRssBytes) }
            row("RSS per connected socket") { kb($0.rssPerSocketBytes) }
            row("server CPU while playing (of one core)") {
                String(format: "%.0f %% over %.1f s", $0.playCpuPercent, $0.playSeconds)
            }
            row("load generator CPU meanwhile (of one core)") { String(format: "%.0f %%", $0.generatorCpuPercent) }
            row("socket errors heard") {
                $0.errors.isEmpty
                    ? "none"
                    : $0.errors.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
                        .joined(separator: ", ")
            }
            lines += ["", "Fan-out by message type (ms: p50 / p99 / max, count):", ""]
            lines += ["| type | tripto | baseline |", "|---|---:|---:|"]
            let types = Set((ours?.fanoutByType.keys).map(Array.init) ?? [])
                .union((theirs?.fanoutByType.keys).map(Array.init) ?? []).sorted()
            for type in types {
                func spread(_ outcome: Outcome?) -> String {
                    guard let s = outcome?.fanoutByType[type] else { return "–" }
                    return String(format: "%.2f / %.2f / %.2f (%d)", s.p50, s.p99, s.max, s.count)
                }
                lines.append("| \(type) | \(spread(ours)) | \(spread(theirs)) |")
            }
            lines.append("")
        }
        if let fairness { lines += fairnessTable(fairness) }
        lines += ["## Targets", "", "| target | measured | met |", "|---|---|---|"]
        for verdict in verdicts {
            lines.append("| \(verdict.target) | \(verdict.measured) | \(verdict.met ? "yes" : "no") |")
        }
        lines.append("")
        return lines.joined(separator: "\n")
    }
}

/// The latency lab's table: each kind of contest judged by press time and by arrival.
private func fairnessTable(_ lab: BrakeLab.Report) -> [String] {
    let waits = lab.decidedAfterMs.sorted()
    let p99 = waits.isEmpty ? 0 : waits[min(waits.count - 1, waits.count * 99 / 100)]
    return [
        "## Fair brake: simulated phones on Wi-Fi",
        "",
        "Simulated phones with one-way delays of \(BrakeLab.delayRange.lowerBound)–\(BrakeLab.delayRange.upperBound) ms "
            + "and jitter up to \(BrakeLab.maxJitterMs) ms, a clock offset each, probed for a minute, drive the box's "
            + "own estimate, judge and game (`BrakeLab`). Each contest is judged both ways in the same run.",
        "",
        "| contests | count | judged by press time | by arrival (v1) |",
        "|---|---:|---:|---:|",
        "| 2–4 pulls, the first pressed ≥ 30 ms ahead | \(lab.clearWinner.contests) | "
            + "\(percent(lab.clearWinner.compensatedShare)) | \(percent(lab.clearWinner.byArrivalShare)) |",
        "| 2–4 pulls, the first pressed < 30 ms ahead | \(lab.closeWinner.contests) | "
            + "\(percent(lab.closeWinner.compensatedShare)) | \(percent(lab.closeWinner.byArrivalShare)) |",
        "| a press within 60 ms of a level change, counted at the level its screen showed | \(lab.level.contests) | "
            + "\(percent(lab.level.compensatedShare)) | \(percent(lab.level.byArrivalShare)) |",
        "",
        "Forged early claims: \(lab.forged), clamped \(lab.forgedClamped), won against a player who pressed "
            + "≥ 30 ms earlier \(lab.forgedWonUnfairly). The box waited \(waits.first ?? 0)–\(waits.last ?? 0) ms "
            + "before deciding (p99 \(p99) ms).",
        "",
    ]
}

private func percent(_ share: Double) -> String { String(format: "%.1f %%", share * 100) }
private func ms(_ value: Double) -> String { String(format: "%.2f ms", value) }
private func mb(_ bytes: Int) -> String { String(format: "%.1f MB", Double(bytes) / 1_000_000) }
private func kb(_ bytes: Double) -> String { String(format: "%.1f KB", bytes / 1_000) }
private func cell(_ value: Double?) -> String { value.map { String(format: "%.2f", $0) } ?? "–" }
private func ratio(_ ours: Double?, _ theirs: Double?) -> String {
    guard let ours, let theirs, theirs > 0 else { return "–" }
    return String(format: "%.2f", ours / theirs)
}
