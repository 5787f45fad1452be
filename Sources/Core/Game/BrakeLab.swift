/// A latency lab for the fair brake: simulated phones on Wi-Fi, each with its own clock offset,
/// one-way delay and jitter, probed the way the box probes them and pressing the brake at known
/// true times. It drives the real estimate (`ClockEstimate`), judge (`BrakeJudge`) and game
/// (`Game`), and scores each contest both ways: judged by press time, and by arrival as v1 did.
/// `make bench` prints its table (docs/performance.md, "Fair brake"); the tests hold it to its targets.
public struct BrakeLab {
    /// One simulated phone: its clock runs `offsetMs` ahead of the box's; each message takes
    /// `delayMs` plus up to `jitterMs` more, drawn per message and per direction.
    public struct Phone: Sendable, Equatable {
        public var offsetMs: Int64
        public var delayMs: Int64
        public var jitterMs: Int64
    }

    /// The share of contests each way got right.
    public struct Score: Codable, Sendable, Equatable {
        public var contests = 0
        public var compensated = 0
        public var byArrival = 0

        public var compensatedShare: Double { contests == 0 ? 0 : Double(compensated) / Double(contests) }
        public var byArrivalShare: Double { contests == 0 ? 0 : Double(byArrival) / Double(contests) }
    }

    public struct Report: Codable, Sendable, Equatable {
        /// Contested pulls whose true first press led the next by 30 ms or more.
        public var clearWinner = Score()
        /// Contested pulls whose true first press led by less than 30 ms.
        public var closeWinner = Score()
        /// Lone presses near a level change: counted at the level the player's screen showed.
        public var level = Score()
        /// Forged early claims, and how many of them were clamped to the link's bound.
        public var forged = 0
        public var forgedClamped = 0
        /// Forged claims that won against an honest player who truly pressed first.
        public var forgedWonUnfairly = 0
        /// How long the box waited before deciding, per contest.
        public var decidedAfterMs: [Int64] = []
    }

    /// One-way delays are drawn from this range, jitter up to `maxJitterMs`.
    public static let delayRange: ClosedRange<Int64> = 2...150
    public static let maxJitterMs: Int64 = 30
    /// A true lead of at least this is one people notice: the target applies to it.
    public static let clearLeadMs: Int64 = 30

    private var random: SplitMix64
    private var now: ServerTime = 1_000_000

    public init(seed: UInt64) { random = SplitMix64(seed: seed) }

    /// Runs `contests` contested pulls (2 to 4 phones, one in ten forging its press time) and
    /// `levelPresses` lone presses around a level change.
    public mutating func run(contests: Int, levelPresses: Int) -> Report {
        var report = Report()
        for index in 0..<contests { contest(forging: index % 10 == 9, into: &report) }
        for _ in 0..<levelPresses { levelPress(into: &report) }
        return report
    }

    // MARK: The simulated room

    private mutating func phone() -> Phone {
        Phone(
            offsetMs: Int64.random(in: -1_000_000_000...1_000_000_000, using: &random),
            delayMs: Int64.random(in: Self.delayRange, using: &random),
            jitterMs: Int64.random(in: 0...Self.maxJitterMs, using: &random))
    }

    private mutating func trip(_ phone: Phone) -> Int64 {
        phone.delayMs + Int64.random(in: 0...phone.jitterMs, using: &random)
    }

    /// A phone's estimate after a minute of probes, one every 2 s as the box sends them.
    private mutating func probed(_ phone: Phone) -> ClockEstimate {
        var estimate = ClockEstimate()
        for _ in 0..<30 {
            let sentAt = now
            let down = trip(phone)
            let clientTime = sentAt + down + phone.offsetMs
            estimate.add(.init(sentAt: sentAt, receivedAt: sentAt + down + trip(phone), clientTimeMs: clientTime))
            now += 2_000
        }
        return estimate
    }

    /// A game with `players` players, a second into its first clue (`now` is the box's time).
    private func game(players: Int) -> Game {
        var settings = Settings(packId: "lab", language: .en)
        settings.introMs = 0
        settings.destinationsCount = 1
        var game = Game(sessionId: "lab", joinCode: "LABLAB", joinUrl: "", settings: settings)
        _ = try? game.apply(.claimHost("host"), by: .box, now: now - 1_000)
        for player in 0..<players {
            _ = try? game.apply(.join(playerId: "p\(player)", name: "Phone \(player)"), by: .box, now: now - 1_000)
        }
        let clues = [10, 8, 6, 4, 2].map { Clue(points: $0, text: "Clue \($0).", claims: []) }
        let destination = Destination(
            id: "lab", name: "Lab", aliases: [], country: "Lab", region: "Lab", lat: 0, lon: 0, revealText: "Lab.",
            clues: clues, followups: [])
        _ = try? game.apply(.start(destinations: [destination]), by: .participant("host"), now: now - 1_000)
        return game
    }

    /// A pull pressed at `pressAt` (the box's time) on `phone`, in flight.
    private struct Flight {
        let player: Int
        let pressAt: ServerTime
        let arrivesAt: ServerTime
        let atClientMs: Int64
    }

    /// Feeds the pulls to the game in arrival order, firing the arbitration's decision when it is
    /// due, and returns the brake's owner and the game.
    private func judge(
        _ flights: [Flight], estimates: [ClockEstimate], game: Game, compensated: Bool
    ) -> (owner: Int?, game: Game, clamped: [Int: Bool], decidedAfterMs: Int64?) {
        var game = game
        var clamped: [Int: Bool] = [:]
        var decidedAfterMs: Int64?
        func note(_ effects: [Effect]?) {
            for case .send(.brakeAccepted(let accepted), _) in effects ?? [] {
                decidedAfterMs = accepted.decidedAfterMs
            }
        }
        let window = compensated ? estimates.map(BrakeJudge.lookbackMs).max() ?? 0 : 0
        func fireDue(before time: ServerTime) {
            while let deadline = game.nextDeadline, deadline.timerId == Arbitration.timerId, deadline.at <= time {
                note(try? game.apply(.timerFired(timerId: deadline.timerId), by: .box, now: deadline.at))
            }
        }
        for flight in flights.sorted(by: { $0.arrivesAt < $1.arrivesAt }) {
            fireDue(before: flight.arrivesAt)
            let estimate = compensated ? estimates[flight.player] : ClockEstimate()
            let timing = BrakeJudge.judge(
                arrivedAt: flight.arrivesAt, atClientMs: flight.atClientMs, estimate: estimate, windowMs: window)
            clamped[flight.player] = timing.clamped
            note(
                try? game.apply(
                    .brakePull(timing: timing), by: .participant("p\(flight.player)"), now: flight.arrivesAt))
        }
        fireDue(before: .max)
        let owner = game.brake.flatMap { Int($0.ownerId.dropFirst()) }
        return (owner, game, clamped, decidedAfterMs)
    }

    private mutating func contest(forging: Bool, into report: inout Report) {
        let count = Int.random(in: 2...4, using: &random)
        let phones = (0..<count).map { _ in phone() }
        let estimates = phones.map { probed($0) }
        let game = game(players: count)
        let firstPress = now + Int64.random(in: 0...500, using: &random)
        var presses = (0..<count).map { _ in firstPress + Int64.random(in: 0...200, using: &random) }
        presses[Int.random(in: 0..<count, using: &random)] = firstPress
        let order = presses.indices.sorted { presses[$0] < presses[$1] }
        let trueFirst = order[0]
        let lead = presses[order[1]] - presses[order[0]]
        let forger = forging ? Int.random(in: 0..<count, using: &random) : nil
        let flights = phones.indices.map { index in
            let claimed = presses[index] + phones[index].offsetMs
            return Flight(
                player: index, pressAt: presses[index], arrivesAt: presses[index] + trip(phones[index]),
                atClientMs: index == forger ? claimed - Int64.random(in: 100...3_000, using: &random) : claimed)
        }
        guard lead > 0 else { return }
        let judged = judge(flights, estimates: estimates, game: game, compensated: true)
        let arrival = judge(flights, estimates: estimates, game: game, compensated: false)
        if lead >= Self.clearLeadMs {
            report.clearWinner.contests += 1
            if judged.owner == trueFirst { report.clearWinner.compensated += 1 }
            if arrival.owner == trueFirst { report.clearWinner.byArrival += 1 }
        } else {
            report.closeWinner.contests += 1
            if judged.owner == trueFirst { report.closeWinner.compensated += 1 }
            if arrival.owner == trueFirst { report.closeWinner.byArrival += 1 }
        }
        if let forger {
            report.forged += 1
            if judged.clamped[forger] == true { report.forgedClamped += 1 }
            if judged.owner == forger, forger != trueFirst, lead >= Self.clearLeadMs { report.forgedWonUnfairly += 1 }
        }
        if let waited = judged.decidedAfterMs { report.decidedAfterMs.append(waited) }
        now += 10_000
    }

    /// One phone presses within 60 ms either side of the moment its screen changed from clue 10 to
    /// 8; counted when the pull reaches the box after the change (before it, both ways get it right).
    private mutating func levelPress(into report: inout Report) {
        let phone = phone()
        let estimate = probed(phone)
        var game = game(players: 1)
        let changeAt = now
        _ = try? game.apply(.nextClue, by: .participant("host"), now: changeAt)
        let shownAt = changeAt + trip(phone)
        let pressAt = shownAt + Int64.random(in: -60...60, using: &random)
        let flight = Flight(
            player: 0, pressAt: pressAt, arrivesAt: pressAt + trip(phone), atClientMs: pressAt + phone.offsetMs)
        now += 10_000
        guard flight.arrivesAt > changeAt else { return }
        let shown = pressAt < shownAt ? 10 : 8
        let judged = judge([flight], estimates: [estimate], game: game, compensated: true)
        let arrival = judge([flight], estimates: [estimate], game: game, compensated: false)
        report.level.contests += 1
        if judged.game.brake?.levelPoints == shown { report.level.compensated += 1 }
        if arrival.game.brake?.levelPoints == shown { report.level.byArrival += 1 }
    }
}
