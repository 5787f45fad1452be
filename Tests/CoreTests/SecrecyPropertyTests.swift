import Foundation
import Testing

@testable import Core

/// Drives many random command sequences and checks, on the encoded JSON that TV and player connections
/// would receive (events and snapshots), that no secret is ever there before its reveal.
@Suite("Projection secrecy (property)", .timeLimit(.minutes(5)))
struct SecrecyPropertyTests {
    static let seeds: [UInt64] = Array(0..<120)

    @Test("TV and players, a captain too, never see secrets before their reveal", arguments: seeds)
    func neverLeaks(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        // Every third game has no host: its captain drives it, and the box's timers (CONTRACT 4.2).
        let captained = seed % 3 == 0
        var table = try Table(
            players: 3,
            settings: Fixture.settings {
                $0.introMs = Int.random(in: 0...1, using: &random) * 3_000
                $0.followupsPerDestination = Int.random(in: 0...3, using: &random)
                $0.autoAdvance = captained || Bool.random(using: &random)
            }, captained: captained)
        let plan = (1...3).map(Fixture.secretDestination)
        var lockedTexts: [(round: Int, text: String)] = []
        let encoder = JSONEncoder()
        var hostSawDestination = false

        for step in 0..<150 {
            let effects = randomStep(&table, plan: plan, step: step, lockedTexts: &lockedTexts, using: &random)
            let game = table.game
            var audiences: [(Role, ParticipantID?)] = [(.tv, table.tv)]
            audiences += game.players.map { (.player, $0.id) }
            audiences.append((.player, "p1"))  // also a player who may have left
            for (role, id) in audiences {
                var texts = try effects.events(for: role, participant: id).map { event in
                    String(
                        decoding: try encoder.encode(
                            ServerMessage(sessionId: "s1", serverTimeMs: table.now, event: event)), as: UTF8.self)
                }
                let projection = game.projection(for: role, participant: id, now: table.now)
                texts.append(String(decoding: try encoder.encode(projection), as: UTF8.self))
                for text in texts {
                    try checkSecrets(in: text, game: game, plan: plan, lockedTexts: lockedTexts, seed: seed, step: step)
                }
            }
            if let round = game.round, game.phase != .lobby,
                game.projection(for: .host, participant: table.host, now: table.now).round?.destination?.name
                    == round.destination.name
            {
                hostSawDestination = true
            }
        }
        if table.game.plan.count > 0, !captained {
            #expect(hostSawDestination, "the host's pro view shows the destination")
        }
    }

    private func checkSecrets(
        in text: String, game: Game, plan: [Destination], lockedTexts: [(round: Int, text: String)], seed: UInt64,
        step: Int
    ) throws {
        let current = game.phase == .lobby ? nil : game.round
        // The regular expressions only where they can matter: removing text adds no secret.
        let withoutClues =
            text.has("Zcountry")
            ? text.replacingOccurrences(of: #""clueText":"(\\.|[^"\\])*""#, with: "", options: .regularExpression)
            : text
        // Multiple-choice options show the right answer among the others: that is the question, not a leak.
        let withoutOptions =
            text.has("Zanswer")
            ? text.replacingOccurrences(of: #""options":\[[^\]]*\]"#, with: "", options: .regularExpression) : text
        let lowercased = text.lowercased()
        for (index, destination) in plan.enumerated() {
            let n = index + 1
            let played = game.plan.firstIndex { $0.id == destination.id }
            let revealed: Bool
            if let played, let current {
                revealed = played < current.index || (played == current.index && current.revealed)
            } else {
                revealed = false  // not part of the game being played
            }
            if !revealed {
                for secret in [
                    "Zdestname\(n)", "Zdestalias\(n)", "Zrevealtext\(n)", "Zregion\(n)", "Zclaim\(n)", "Zsource\(n)",
                ] {
                    // Case-insensitive: the destination's id is its name in lowercase.
                    check(
                        !lowercased.has(secret.lowercased()),
                        "seed \(seed) step \(step): \(secret) leaked in \(text)")
                }
                check(
                    !withoutClues.has("Zcountry\(n)"), "seed \(seed) step \(step): country leaked outside a clue")
                if let current, played == current.index, (current.levelIndex ?? 0) < 2 {
                    check(
                        !text.has("Zcountry\(n)"),
                        "seed \(seed) step \(step): country before the clue that names it")
                }
            }
            for f in 1...3 {
                let published: Bool
                if let played, let current {
                    let followup = current.followup
                    published =
                        played < current.index
                        || (played == current.index
                            && (followup.map { $0.index > f || ($0.index == f && $0.results != nil) } ?? false))
                } else {
                    published = false
                }
                if !published {
                    check(
                        !withoutOptions.has("Zanswer\(n)x\(f)"),
                        "seed \(seed) step \(step): followup answer leaked")
                    check(!text.has("Zaccepted\(n)x\(f)"), "seed \(seed) step \(step): accepted answer leaked")
                    check(!text.has("Zfsource\(n)"), "seed \(seed) step \(step): followup source leaked")
                }
            }
        }
        for (round, locked) in lockedTexts {
            let revealed = current.map { round < $0.index || (round == $0.index && $0.revealed) } ?? true
            if !revealed {
                check(!text.has(locked), "seed \(seed) step \(step): locked answer \(locked) leaked")
            }
        }
    }

    /// An issue only when `condition` fails (this runs millions of times).
    private func check(_ condition: Bool, _ message: @autoclosure () -> String) {
        if !condition { Issue.record(Comment(rawValue: message())) }
    }

    /// One random thing happening at the table; refused commands are part of the test too.
    private func randomStep(
        _ table: inout Table, plan: [Destination], step: Int, lockedTexts: inout [(round: Int, text: String)],
        using random: inout SplitMix64
    ) -> [Effect] {
        table.advance(Int64.random(in: 0...3_000, using: &random))
        let players = ["p1", "p2", "p3", "p4"]
        let anyPlayer = players.randomElement(using: &random)!
        let choice = Int.random(in: 0..<100, using: &random)
        func apply(_ command: Command, _ actor: Issuer) -> [Effect] {
            (try? table.game.apply(command, by: actor, now: table.now)) ?? []
        }
        // Who drives: the host, or in a game without one its captain.
        let controller: Issuer = .participant(table.game.captainId ?? table.host)
        switch choice {
        case 0..<6:
            return apply(.start(destinations: plan), controller)
        case 6..<22:
            return apply([.next, .nextClue, .forceReveal].randomElement(using: &random)!, controller)
        case 22..<26:
            return apply([.pause, .resume, .restart].randomElement(using: &random)!, controller)
        case 26..<40:
            return apply(.brakePull(), .participant(anyPlayer))
        case 40..<52:
            let text = "Zlocked\(step)"
            let roundIndex = table.game.round?.index ?? -1
            let effects = apply(.brakeAnswer(answerText: text), .participant(table.game.brake?.ownerId ?? anyPlayer))
            if !effects.isEmpty { lockedTexts.append((roundIndex, text)) }
            return effects
        case 52..<62:
            let index = table.game.round?.followup?.index ?? 1
            return apply(.followupAnswer(index: index, answerText: "guess \(step)"), .participant(anyPlayer))
        case 62..<80:
            guard let deadline = table.game.nextDeadline else { return [] }
            table.now = max(table.now, deadline.at)
            return apply(.timerFired(timerId: deadline.timerId), .box)
        case 80..<84:
            return apply(.join(playerId: "p4", name: "Late \(step)"), .box)
        case 84..<86:
            return apply(.kick(playerId: anyPlayer), controller)
        case 86..<88:
            return apply(.leave, .participant(anyPlayer))
        case 88..<94:
            return table.game.setConnected(anyPlayer, Bool.random(using: &random), now: table.now)
        default:
            // Commands from the wrong role must change nothing.
            let before = table.game
            let effects = apply(
                [.next, .forceReveal, .start(destinations: plan)].randomElement(using: &random)!, .participant(table.tv)
            )
            #expect(effects.isEmpty && table.game == before)
            return effects
        }
    }
}

extension String {
    /// Whether `part` occurs in the string, byte for byte. Foundation's `contains` goes through
    /// NSString on Linux, and was most of this suite's time (it runs on the same two cores as the
    /// suites that play against a live box).
    fileprivate func has(_ part: String) -> Bool {
        var (text, part) = (self, part)
        return text.withUTF8 { text in
            part.withUTF8 { part in
                guard let first = part.first, text.count >= part.count else { return part.isEmpty }
                var start = 0
                let last = text.count - part.count
                while start <= last {
                    // memchr and memcmp: this runs in a debug build.
                    guard let hit = memchr(text.baseAddress! + start, Int32(first), last - start + 1) else {
                        return false
                    }
                    let offset = UnsafePointer<UInt8>(hit.assumingMemoryBound(to: UInt8.self)) - text.baseAddress!
                    if memcmp(text.baseAddress! + offset, part.baseAddress!, part.count) == 0 { return true }
                    start = offset + 1
                }
                return false
            }
        }
    }
}
