import Core
import Foundation
import Testing

@testable import Appliance

/// The box writes its frames with its own JSON writer; every message of a scripted game, with
/// names and answers full of JSON's special characters, must say exactly what Foundation's
/// `JSONEncoder` says of it.
@Suite("streaming JSON encoder", .timeLimit(.minutes(5)))
struct StreamingJSONEncoderTests {
    /// For pack texts; a player's answers may not hold control characters (`answer`).
    static let tricky = answer + " tab\t nl\n\u{1}\u{1F}"
    static let answer = #"Ann "Q" \ / <b>x</b> ö 🚂"#

    static func destination() -> Destination {
        Destination(
            id: "d1", name: "Göteborg " + tricky, aliases: ["Gbg"], country: "Sverige", region: "Väst", lat: 57.7,
            lon: 11.97, revealText: "Reveal " + tricky,
            clues: [10, 8, 6, 4, 2].map { Clue(points: $0, text: "Clue \($0) " + tricky, claims: []) },
            followups: [
                Followup(question: "Year? " + tricky, answer: "1621", accepted: ["1621"], options: nil, sources: []),
                Followup(
                    question: "Which?", answer: "A", accepted: ["A"], options: ["A", "B \"quoted\"", "C\\"],
                    sources: []),
            ])
    }

    /// Foundation's reading of both texts must be the same object.
    static func same(_ value: some Encodable) throws -> Bool {
        let ours = try StreamingJSONEncoder.encode(value)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .withoutEscapingSlashes
        let theirs = try encoder.encode(value)
        let a = try JSONSerialization.jsonObject(with: Data(ours), options: .fragmentsAllowed) as! NSObject
        let b = try JSONSerialization.jsonObject(with: theirs, options: .fragmentsAllowed) as! NSObject
        return a.isEqual(b) && ours.count == theirs.count
    }

    /// The box's envelope (`WireEncoder`) is the one `ServerMessage` encodes, to the byte.
    static func envelopeAgrees(_ message: ServerMessage) throws -> Bool {
        WireEncoder.text(message) == String(decoding: try StreamingJSONEncoder.encode(message), as: UTF8.self)
    }

    @Test("every event and every role's snapshot of a whole game encodes as JSONEncoder encodes it")
    func wholeGame() throws {
        var now: ServerTime = 1_700_000_000_000
        var settings = Settings(packId: "test", language: .sv)
        settings.destinationsCount = 1
        settings.followupsPerDestination = 2
        var game = Game(
            sessionId: "s1", joinCode: "ABCDEF", joinUrl: "http://box/join/s1?t=x", settings: settings)
        var checked = 0
        func check(_ effects: [Effect]) throws {
            for case .send(let event, _) in effects {
                let message = ServerMessage(sessionId: "s1", serverTimeMs: now, event: event)
                #expect(try Self.same(message), "\(event)")
                #expect(try Self.envelopeAgrees(message), "\(event)")
                checked += 1
            }
            for (role, participant) in [(Role.host, "h"), (.tv, "t"), (.player, "p1"), (.player, "p2")] {
                let projection = game.projection(for: role, participant: participant, now: now)
                let message = ServerMessage(sessionId: "s1", serverTimeMs: now, event: .stateSnapshot(projection))
                #expect(try Self.same(message), "\(role) snapshot in \(game.phase)")
                #expect(try Self.envelopeAgrees(message), "\(role) snapshot in \(game.phase)")
                #expect(try Self.same(game.you(participant)))
                checked += 2
            }
        }
        func run(_ command: Command, by actor: Issuer = .box) throws {
            now += 1_500
            try check(try game.apply(command, by: actor, now: now))
        }
        try run(.claimHost("h"))
        try run(.claimTv("t"))
        try run(.join(playerId: "p1", name: #"Å "Q" \ /<i>🚂"#))
        try run(.join(playerId: "p2", name: "Björn"))
        for id in ["h", "t", "p1", "p2"] { try check(game.setConnected(id, true, now: now)) }
        try run(.setMusicGain(gainDb: -6.5), by: .participant("h"))
        try run(.setMusicGain(gainDb: -12), by: .participant("h"))
        try run(.start(destinations: [Self.destination()]), by: .participant("h"))
        try run(.nextClue, by: .participant("h"))
        try run(.brakePull(), by: .participant("p1"))
        try run(.brakeAnswer(answerText: Self.answer), by: .participant("p1"))
        try run(.nextClue, by: .participant("h"))
        try run(.brakePull(), by: .participant("p2"))
        try run(.brakeAnswer(answerText: "Göteborg"), by: .participant("p2"))
        try run(.forceReveal, by: .participant("h"))
        // Through the reveal, both followups (answered, one with markup), the scoreboard and the finale.
        for step in 0..<12 where game.phase != .roundEnd {
            if game.phase == .followupQuestion,
                let index = game.projection(for: .tv, participant: nil, now: now).followup?.index
            {
                try? run(
                    .followupAnswer(index: index, answerText: step % 2 == 0 ? "1621" : Self.answer),
                    by: .participant("p1"))
            }
            try run(.next, by: .participant("h"))
        }
        try run(.end(reason: "host_ended"), by: .participant("h"))
        #expect(checked > 100)
    }

    @Test("numbers, empty containers and strings that need escaping")
    func edges() throws {
        #expect(try Self.same(["a": [Double]([0, -0.5, 1e21, 1.5e-7, 3, -6])]))
        #expect(try Self.same([String: [Int]]()))
        #expect(try Self.same([[String]]()))
        #expect(try Self.same([Int64.max, Int64.min]))
        #expect(try Self.same(["u": [UInt64.max], "i": [UInt64(Int32.min.magnitude)]]))
        #expect(try Self.same([Int32.min, 7]))
        #expect(try Self.same([Float(1.5), -2]))
        #expect(try Self.same([true, false]))
        #expect(try Self.same(["k\"\\\u{7}": Self.tricky]))
        #expect(try Self.same([String?.none, "x"]))
        #expect(throws: EncodingError.self) { try StreamingJSONEncoder.encode([Double.nan]) }
    }
}
