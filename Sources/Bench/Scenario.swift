import Foundation

/// A load to put on a server: `sessions` tables of `players` players (plus host and TV each).
struct Scenario: Codable, Sendable {
    var name: String
    var sessions: Int
    var players: Int
    var games: Int
    var everyoneBrakes: Bool
    /// The clients ask the box for STATE_PATCH, as its own web pages do (the baseline sends
    /// snapshots whatever they ask).
    var patches: Bool
    /// How long a host looks at each screen before moving on.
    var stepMs: Int
    /// How long a player whose brake was accepted takes to answer.
    var answerMs: Int
    var timeoutSeconds: Int

    var sockets: Int { sessions * (players + 2) }
}

/// Everything one scenario measured on one server.
struct Outcome: Codable, Sendable {
    var contender: Contender
    var scenario: Scenario
    var coldStartMs: Double
    var idleRssBytes: Int
    var idleCpuPercent: Double
    var connectedRssBytes: Int
    var rssPerSocketBytes: Double
    var socketsConnected: Int
    var playCpuPercent: Double
    var playSeconds: Double
    /// This load generator's own CPU over the same time: it shares the cores with the server.
    var generatorCpuPercent: Double
    var create: Spread
    var join: Spread
    var fanout: Spread
    var fanoutByType: [String: Spread]
    var brake: Spread
    /// For each accepted pull, when the last seat of its table heard it: the brake "received by all".
    var brakeLastSeat: Spread
    var tablesFinished: Int
    var eventsExpected: Int
    var lost: Int
    /// Snapshot versions going down, or table-wide events in another order than the host heard them.
    var outOfOrder: Int
    var stampsBack: Int
    var undecodable: Int
    var errors: [String: Int]
}

/// Runs `body` over `items` with at most `width` at a time, keeping the results in order.
func inWaves<Item: Sendable, Result: Sendable>(
    _ items: [Item], width: Int, _ body: @escaping @Sendable (Item) async throws -> Result
) async throws -> [Result] {
    try await withThrowingTaskGroup(of: (Int, Result).self) { group in
        var results = [Result?](repeating: nil, count: items.count)
        var next = 0
        while next < min(width, items.count) {
            let index = next
            group.addTask { (index, try await body(items[index])) }
            next += 1
        }
        while let (index, result) = try await group.next() {
            results[index] = result
            if next < items.count {
                let index = next
                group.addTask { (index, try await body(items[index])) }
                next += 1
            }
        }
        return results.map { $0! }
    }
}

extension Scenario {
    /// Messages to one connection only, sent straight to its socket: left out of the fan-out figure.
    static let notFannedOut: Set<String> = ["PONG", "ERROR", "CLOCK_PROBE", "CONNECTION_QUALITY"]

    func run(
        on contender: Contender, launch: RunningServer.Launch, log: @Sendable (String) -> Void
    ) async throws
        -> Outcome
    {
        let server = try await RunningServer(contender, launch: launch)
        defer { server.stop() }
        log("\(contender.rawValue): answered /healthz \(String(format: "%.0f", server.coldStartMs)) ms after spawn")

        try await Task.sleep(for: .seconds(1))
        let idleStart = server.gauge.read()
        try await Task.sleep(for: .seconds(1))
        let idle = server.gauge.read()

        let strict = contender == .tripto
        let brakes: TableLedger.Brakes = everyoneBrakes ? .everyone : .pairs
        let (players, answerMs) = (self.players, self.answerMs)
        let tables = try await inWaves(Array(0..<sessions), width: 8) { _ in
            try await Table(server: server, players: players, brakes: brakes, answerMs: answerMs, strict: strict)
        }
        log("\(contender.rawValue): \(sessions) sessions created, \(sessions * (players + 2)) seats joined")

        // The hosts' wire checks wait until the play is over: they take CPU from what is measured.
        Seat.holdChecks()
        var checksHeld = true
        defer { if checksHeld { Seat.releaseChecks() } }
        let pairs = tables.flatMap { table in zip(table.seats, table.tokens).map { ($0, $1) } }
        let (port, patches) = (server.socketPort, self.patches)
        let connected = try await inWaves(pairs, width: 64) { seat, token in
            await seat.connect(port: port, token: token, patches: patches)
        }.filter { $0 }.count
        log("\(contender.rawValue): \(connected) of \(pairs.count) sockets connected")
        try await Task.sleep(for: .seconds(1))
        let settled = server.gauge.read()

        let generator = ProcessGauge(pid: getpid())
        let playStart = server.gauge.read()
        let generatorStart = generator.read()
        let deadline = WallClock.nowMs() + Double(timeoutSeconds) * 1_000
        let games = self.games
        let stepMs = self.stepMs
        let finished = try await inWaves(tables, width: tables.count) { table in
            // Tables start at different moments, as they would in a venue.
            try? await Task.sleep(for: .milliseconds(Int.random(in: 0...(stepMs * 2))))
            return await table.play(games: games, stepMs: stepMs, deadlineMs: deadline)
        }.filter { $0 }.count
        let playEnd = server.gauge.read()
        let generatorEnd = generator.read()
        // Let the last messages arrive before counting.
        try await Task.sleep(for: .milliseconds(500))
        for table in tables { for seat in table.seats { seat.close() } }
        checksHeld = false
        Seat.releaseChecks()
        await Seat.checksDone()
        log("\(contender.rawValue): \(finished) of \(tables.count) tables finished")

        var byType: [String: [Double]] = [:]
        var all: [Double] = []
        var brakeSamples: [Double] = []
        /// A winning pull: its table, its owner and the stamp of its BRAKE_ACCEPTED.
        struct Pull: Hashable {
            var table: ObjectIdentifier
            var owner: String
            var stamp: Int64
        }
        var lastSeat: [Pull: Double] = [:]
        var errors: [String: Int] = [:]
        var undecodable = 0
        for seat in tables.flatMap(\.seats) {
            seat.notes.withLock { notes in
                for (type, samples) in notes.latencies where type != "WELCOME" {
                    byType[type, default: []] += samples
                }
                for brake in notes.brakesHeard {
                    if let sent = seat.table.pullSent(owner: brake.owner, stamp: brake.stamp) {
                        let latency = brake.at - sent
                        brakeSamples.append(latency)
                        let pull = Pull(table: ObjectIdentifier(seat.table), owner: brake.owner, stamp: brake.stamp)
                        lastSeat[pull] = max(lastSeat[pull] ?? 0, latency)
                    }
                }
                errors.merge(notes.errors, uniquingKeysWith: +)
                undecodable += notes.undecodable
            }
        }
        // The fan-out: every event and snapshot heard (WELCOME aside), the presence updates while a
        // table's seats connect included.
        // Answers and probes go to one connection each, straight to its socket: not a fan-out.
        for (type, samples) in byType where !Self.notFannedOut.contains(type) { all += samples }
        let tallies = tables.map { $0.tally() }

        func cpuPercent(_ from: ProcessGauge.Reading?, _ to: ProcessGauge.Reading?) -> Double {
            guard let from, let to, to.atMs > from.atMs else { return 0 }
            return (to.cpuSeconds - from.cpuSeconds) / ((to.atMs - from.atMs) / 1_000) * 100
        }
        let idleRss = idle?.rssBytes ?? 0
        let settledRss = settled?.rssBytes ?? 0
        return Outcome(
            contender: contender, scenario: self, coldStartMs: server.coldStartMs, idleRssBytes: idleRss,
            idleCpuPercent: cpuPercent(idleStart, idle), connectedRssBytes: settledRss,
            rssPerSocketBytes: connected > 0 ? Double(settledRss - idleRss) / Double(connected) : 0,
            socketsConnected: connected, playCpuPercent: cpuPercent(playStart, playEnd),
            playSeconds: ((playEnd?.atMs ?? 0) - (playStart?.atMs ?? 0)) / 1_000,
            generatorCpuPercent: cpuPercent(generatorStart, generatorEnd),
            create: Spread(tables.flatMap(\.timing.create)), join: Spread(tables.flatMap(\.timing.join)),
            fanout: Spread(all), fanoutByType: byType.mapValues(Spread.init), brake: Spread(brakeSamples),
            brakeLastSeat: Spread(Array(lastSeat.values)),
            tablesFinished: finished, eventsExpected: tallies.map(\.expected).reduce(0, +),
            lost: tallies.map(\.lost).reduce(0, +), outOfOrder: tallies.map(\.outOfOrder).reduce(0, +),
            stampsBack: tallies.map(\.stampsBack).reduce(0, +),
            undecodable: undecodable, errors: errors)
    }
}
