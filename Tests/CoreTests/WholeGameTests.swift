import Foundation
import Testing

@testable import Core

/// Whole games played purely through Core commands, driven by a seed: the same seed gives the same game,
/// and replaying the logged commands rebuilds the same state (which is how the box recovers).
@Suite("Whole games from a seed")
struct WholeGameTests {
    struct Entry: Codable, Equatable {
        var command: Command
        var actor: Issuer
        var at: ServerTime
    }

    struct Outcome: Equatable {
        var standings: [Standing]
        var final: FinalResults?
        var log: [Entry]
        var game: Game
    }

    /// Plays a full evening on `pack` with simulated players: some pull the brake and answer (right or
    /// wrong, with typos), everyone answers followups, the host drives, timers fire when due.
    static func play(pack: Pack, seed: UInt64, players: Int = 4) throws -> Outcome {
        var random = SplitMix64(seed: seed)
        var settings = Settings(packId: pack.packId, language: pack.language)
        settings.destinationsCount = 3
        var game = Game(
            sessionId: "s\(seed)", joinCode: JoinCode.random(using: &random), joinUrl: "http://box/join",
            settings: settings)
        var now: ServerTime = 1_700_000_000_000
        var log: [Entry] = []

        func run(_ command: Command, _ actor: Issuer) throws {
            let version = game.version
            _ = try game.apply(command, by: actor, now: now)
            if game.version > version { log.append(Entry(command: command, actor: actor, at: now)) }
        }
        func fireDue() throws {
            while let deadline = game.nextDeadline, deadline.at <= now {
                try run(.timerFired(timerId: deadline.timerId), .box)
            }
        }

        try run(.claimHost("host"), .box)
        try run(.claimTv("tv"), .box)
        let ids = (1...players).map { "p\($0)" }
        for id in ids { try run(.join(playerId: id, name: "Player \(id)"), .box) }
        let destinations = DestinationDraw.draw(
            settings.destinationsCount, from: pack, recentlyPlayed: [], using: &random)
        try run(.start(destinations: destinations), .participant("host"))

        var steps = 0
        while game.phase != .roundEnd {
            steps += 1
            guard steps < 500 else { throw CancellationError() }
            now += Int64.random(in: 500...4_000, using: &random)
            try fireDue()
            switch game.phase {
            case .clueLevel:
                let player = ids.randomElement(using: &random)!
                if Int.random(in: 0..<3, using: &random) == 0,
                    case .success = game.judgedLevel(of: player, claimed: nil, judgedAt: now, timing: nil, now: now)
                {
                    try run(.brakePull(), .participant(player))
                    let destination = game.round!.destination
                    let answer: String
                    switch Int.random(in: 0..<4, using: &random) {
                    case 0: answer = destination.name
                    case 1: answer = destination.aliases.first ?? destination.name.lowercased()
                    case 2: answer = String(destination.name.dropLast()) + "e"
                    default: answer = "Atlantis"
                    }
                    now += Int64.random(in: 1_000...8_000, using: &random)
                    try run(.brakeAnswer(answerText: answer), .participant(player))
                } else {
                    try run(.nextClue, .participant("host"))
                }
            case .followupQuestion:
                if let followup = game.round?.followup, followup.isOpen {
                    for player in ids where Bool.random(using: &random) {
                        let answer = Bool.random(using: &random) ? followup.question.answer : "no idea"
                        try run(.followupAnswer(index: followup.index, answerText: answer), .participant(player))
                    }
                    now += Int64(game.settings.followupSeconds) * 1000
                    try fireDue()
                } else {
                    try run(.next, .participant("host"))
                }
            case .roundIntro, .revealDestination, .scoreboard, .finalResults:
                if game.phase == .finalResults {
                    now += Int64(game.settings.finaleMs)
                    try fireDue()
                } else {
                    try run(.next, .participant("host"))
                }
            case .pausedForBrake, .lobby, .preparingRound, .roundEnd:
                break
            }
        }
        return Outcome(standings: game.standings, final: game.finalResults, log: log, game: game)
    }

    static func shippedPack(_ id: String) throws -> Pack {
        let file = Fixture.repositoryRoot.appendingPathComponent("packs/\(id)/pack.json")
        return try JSONDecoder().decode(Pack.self, from: Data(contentsOf: file))
    }

    /// The ids of the packs in the repository's packs folder.
    static var shippedPackIds: [String] {
        let folder = Fixture.repositoryRoot.appendingPathComponent("packs").path
        return ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter {
            FileManager.default.fileExists(atPath: "\(folder)/\($0)/pack.json")
        }.sorted()
    }

    @Test("every shipped pack plays a whole game to its finale", arguments: shippedPackIds)
    func everyPack(packId: String) throws {
        let outcome = try Self.play(pack: try Self.shippedPack(packId), seed: 2026)
        #expect(outcome.game.phase == .roundEnd && outcome.final?.standingsFull.count == 4)
        #expect(outcome.game.plan.count == 3)
    }

    @Test("the same seed plays the same game", arguments: ["sv-sverige", "en-europe"])
    func deterministic(packId: String) throws {
        let pack = try Self.shippedPack(packId)
        let first = try Self.play(pack: pack, seed: 42)
        let second = try Self.play(pack: pack, seed: 42)
        #expect(first == second)
        #expect(first.final?.standingsFull.count == 4)
        #expect(first.game.plan.count == 3)
        let other = try Self.play(pack: pack, seed: 43)
        #expect(other.log != first.log, "another seed plays another game")
    }

    @Test("points add up: locked answers and followups, nothing else", arguments: [UInt64(1), 2, 3, 4, 5])
    func pointsAddUp(seed: UInt64) throws {
        let outcome = try Self.play(pack: try Self.shippedPack("sv-sverige"), seed: seed)
        #expect(outcome.game.phase == .roundEnd)
        let total = outcome.standings.map(\.points).reduce(0, +)
        #expect(total % 2 == 0)
        #expect(total <= 3 * 4 * (10 + 2 * Game.followupPoints))
        #expect(outcome.final?.standingsFull == outcome.standings)
    }

    @Test("replaying the command log rebuilds the same game", arguments: [UInt64(7), 8, 9])
    func replay(seed: UInt64) throws {
        let outcome = try Self.play(pack: try Self.shippedPack("en-europe"), seed: seed)
        // The log goes through JSON, as it does in the database.
        let stored = try JSONEncoder().encode(outcome.log)
        let entries = try JSONDecoder().decode([Entry].self, from: stored)
        var replayed = Game(
            sessionId: outcome.game.sessionId, joinCode: outcome.game.joinCode, joinUrl: outcome.game.joinUrl,
            settings: outcome.game.settings)
        for entry in entries {
            _ = try replayed.apply(entry.command, by: entry.actor, now: entry.at)
        }
        var original = outcome.game
        let now = entries.last!.at
        original.resetPresence(now: now)
        replayed.resetPresence(now: now)
        #expect(
            replayed.projection(for: .host, participant: "host", now: now)
                == original.projection(for: .host, participant: "host", now: now))
        #expect(replayed.standings == original.standings)
        #expect(replayed.phase == original.phase)
        #expect(replayed.timerCount == original.timerCount)
    }

    @Test("the draw prefers destinations this box has not played recently")
    func draw() throws {
        let pack = try Self.shippedPack("sv-sverige")
        var random = SplitMix64(seed: 1)
        let all = pack.destinations.map(\.id)
        let recent = Array(all.prefix(9))
        let drawn = DestinationDraw.draw(3, from: pack, recentlyPlayed: recent, using: &random).map(\.id)
        #expect(Set(drawn) == Set(all.suffix(3)))
        // When all were played, the ones played longest ago come first.
        let order = all.reversed().map { $0 }
        let oldest = DestinationDraw.draw(2, from: pack, recentlyPlayed: order, using: &random).map(\.id)
        #expect(Set(oldest) == Set(order.suffix(2)))
        var a = SplitMix64(seed: 5)
        var b = SplitMix64(seed: 5)
        #expect(
            DestinationDraw.draw(5, from: pack, recentlyPlayed: [], using: &a)
                == DestinationDraw.draw(5, from: pack, recentlyPlayed: [], using: &b))
        #expect(DestinationDraw.draw(99, from: pack, recentlyPlayed: [], using: &a).count == pack.destinations.count)
    }

    @Test("within a game no two destinations of one country follow each other, where the pack allows it")
    func drawCountries() throws {
        let world = try Self.shippedPack("sv-varlden")
        var pack = try Self.shippedPack("sv-sverige")
        // Sweden's twelve and three abroad.
        pack.destinations += world.destinations.prefix(3)
        for seed in 1...40 {
            var random = SplitMix64(seed: UInt64(seed))
            let abroad = Set(world.destinations.prefix(3).map(\.id))
            // The three abroad and two Swedish towns are the freshest: the rest were played.
            let played = pack.destinations.map(\.id).filter { !abroad.contains($0) }
            let drawn = DestinationDraw.draw(5, from: pack, recentlyPlayed: Array(played.prefix(10)), using: &random)
            #expect(Set(drawn.map(\.id)).isSuperset(of: abroad), "freshness still decides what is played")
            let countries = drawn.map(\.country)
            #expect(zip(countries, countries.dropFirst()).allSatisfy { $0 != $1 }, "\(countries)")
        }
        // A pack of one country is played as it is.
        var random = SplitMix64(seed: 3)
        #expect(
            try DestinationDraw.draw(3, from: Self.shippedPack("sv-sverige"), recentlyPlayed: [], using: &random).count
                == 3)
        // Among equally fresh destinations, another country is taken before a second of the same.
        let fresh = DestinationDraw.draw(4, from: pack, recentlyPlayed: [], using: &random).map(\.country)
        #expect(zip(fresh, fresh.dropFirst()).allSatisfy { $0 != $1 }, "\(fresh)")
    }
}
