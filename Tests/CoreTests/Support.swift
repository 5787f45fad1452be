import Foundation

@testable import Core

/// Test data and shortcuts shared by the Core suites.
enum Fixture {
    static var directory: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
    }
    static var repositoryRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
    }

    static func data(_ name: String) throws -> Data { try Data(contentsOf: directory.appendingPathComponent(name)) }

    static func miniPack() throws -> Pack { try JSONDecoder().decode(Pack.self, from: data("mini.json")) }

    /// The mini pack as a mutable JSON tree, for making broken variants.
    static func miniTree() throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: data("mini.json")) as! [String: Any]
    }

    /// A destination whose every secret is a unique marker, so a leak is found by a plain substring search.
    /// The 6-point clue names the country on purpose: that is allowed, and only inside that clue's text.
    /// Its id is its name in lowercase, as in the shipped packs, so the id is a secret too.
    static func secretDestination(_ n: Int) -> Destination {
        Destination(
            id: "zdestname\(n)", name: "Zdestname\(n)", aliases: ["Zdestalias\(n)"], country: "Zcountry\(n)",
            region: "Zregion\(n)", lat: 10, lon: 20, revealText: "Zrevealtext\(n)",
            clues: PackValidator.cluePoints.map { points in
                Clue(
                    points: points,
                    text: points == 6 ? "Clue \(points) of \(n), in Zcountry\(n)." : "Clue \(points) of \(n).",
                    claims: [
                        Claim(id: "c\(points)", statement: "Zclaim\(n)", sources: ["https://example.org/Zsource\(n)"])
                    ])
            },
            followups: (1...3).map { f in
                Followup(
                    question: "Question \(f) of \(n)?", answer: "Zanswer\(n)x\(f)", accepted: ["Zaccepted\(n)x\(f)"],
                    options: f == 2 ? ["Zanswer\(n)x\(f)", "Other \(f)", "Third \(f)"] : nil,
                    sources: ["https://example.org/Zfsource\(n)"])
            },
            banter: ["Zbanter\(n) one.", "Zbanter\(n) two."])
    }

    static func settings(_ change: (inout Settings) -> Void = { _ in }) -> Settings {
        var settings = Settings(packId: "test", language: .en)
        change(&settings)
        return settings
    }
}

/// A game with a host, a TV and players, plus shortcuts that fail the test on a refused command.
struct Table {
    var game: Game
    var now: ServerTime = 1_700_000_000_000
    let host = "host-1"
    let tv = "tv-1"
    var players: [ParticipantID] = []

    /// `captained`: a game without a host (CONTRACT 4.2) whose first player is the captain.
    init(
        players count: Int = 3, settings: Settings = Fixture.settings(), limits: Limits = Limits(),
        pacing: Pacing = Pacing(), captained: Bool = false
    ) throws {
        game = Game(
            sessionId: "s1", joinCode: "ABCDEF", joinUrl: "http://box/join/s1?t=x", settings: settings, limits: limits,
            pacing: pacing)
        if !captained {
            _ = try game.apply(.claimHost(host), by: .box, now: now)
            _ = game.setConnected(host, true, now: now)
        }
        _ = try game.apply(.claimTv(tv), by: .box, now: now)
        _ = game.setConnected(tv, true, now: now)
        for n in 1...max(count, 1) where count > 0 {
            let id = "p\(n)"
            _ = try game.apply(
                .join(playerId: id, name: "Player \(n)", captain: captained && n == 1 ? true : nil), by: .box, now: now)
            _ = game.setConnected(id, true, now: now)
            players.append(id)
        }
    }

    @discardableResult
    mutating func host(_ command: Command) throws -> [Effect] {
        try game.apply(command, by: .participant(host), now: now)
    }

    @discardableResult
    mutating func player(_ index: Int, _ command: Command) throws -> [Effect] {
        try game.apply(command, by: .participant(players[index]), now: now)
    }

    mutating func advance(_ ms: Int64) { now += ms }

    /// Moves the clock to the next deadline and fires it.
    @discardableResult
    mutating func fireNextTimer() throws -> [Effect] {
        guard let deadline = game.nextDeadline else { throw TableError.noTimer }
        now = max(now, deadline.at)
        return try game.apply(.timerFired(timerId: deadline.timerId), by: .box, now: now)
    }

    mutating func start(
        _ destinations: [Destination] = [Fixture.secretDestination(1), Fixture.secretDestination(2)]
    ) throws {
        try host(.start(destinations: destinations))
    }
}

enum TableError: Error { case noTimer }

extension Array where Element == Effect {
    /// The events in these effects that `role`/`participant` receives.
    func events(for role: Role, participant: ParticipantID? = nil) -> [ServerEvent] {
        compactMap { effect in
            guard case .send(let event, let audience) = effect, audience.includes(role: role, participant: participant)
            else { return nil }
            return event
        }
    }

    var eventTypes: [String] {
        compactMap { effect in
            if case .send(let event, _) = effect { return event.type }
            return nil
        }
    }
}
