import Core
import Foundation
import Testing

@testable import Console

/// The bots' decisions on their own: reaction times, which clues they pull, what they answer, and
/// what they know from the packs (`tripto-console bots`).
@Suite("console bots' decisions", .timeLimit(.minutes(1)))
struct BotTests {
    static let packs = LiveBox.repository.appendingPathComponent("packs").path

    /// Over many clues: how often a bot pulls at each level, and its reaction times.
    static func pulls(skill: Double, seed: UInt64 = 1, trials: Int = 4000) -> (rates: [Double], delays: [Int]) {
        var brain = BotBrain(skill: skill, seed: seed)
        var counts = [Int](repeating: 0, count: 5)
        var delays: [Int] = []
        for level in 1...5 {
            for _ in 0..<trials {
                if let delay = brain.pullDelay(levelIndex: level) {
                    counts[level - 1] += 1
                    delays.append(delay)
                }
            }
        }
        return (counts.map { Double($0) / Double(trials) }, delays.sorted())
    }

    @Test("a skilled bot pulls earlier clues more often and reacts sooner; nobody pulls every clue")
    func pullsBySkill() {
        let skilled = Self.pulls(skill: 0.9)
        let unskilled = Self.pulls(skill: 0.2)
        // The chance grows from clue to clue, for both.
        for rates in [skilled.rates, unskilled.rates] {
            #expect(zip(rates, rates.dropFirst()).allSatisfy { $0 < $1 }, "\(rates)")
            #expect(rates.allSatisfy { $0 < 0.97 }, "\(rates)")
        }
        #expect(skilled.rates[0] > 0.15 && unskilled.rates[0] < 0.05, "\(skilled.rates) \(unskilled.rates)")
        #expect(skilled.rates.indices.allSatisfy { skilled.rates[$0] > unskilled.rates[$0] })
        #expect(BotBrain.pullChance(skill: 0, levelIndex: 1) == 0)
        // Human reaction times: the skilled median about a second, the unskilled several; within bounds.
        let skilledMedian = skilled.delays[skilled.delays.count / 2]
        let unskilledMedian = unskilled.delays[unskilled.delays.count / 2]
        #expect((800...1500).contains(skilledMedian), "\(skilledMedian)")
        #expect((2800...4600).contains(unskilledMedian), "\(unskilledMedian)")
        #expect(skilled.delays.first! >= 250 && unskilled.delays.last! <= 15_000)
        // A spread, not one fixed time.
        #expect(skilled.delays[skilled.delays.count / 10] < skilled.delays[skilled.delays.count * 9 / 10] - 400)
    }

    @Test("the same seed makes the same choices, another seed others")
    func seeded() {
        func choices(_ seed: UInt64) -> [String] {
            var brain = BotBrain(skill: 0.6, seed: seed)
            return (0..<50).map { index in
                let pull = brain.pullDelay(levelIndex: index % 5 + 1).map(String.init) ?? "-"
                return pull + brain.brakeAnswer(right: "Visby", others: ["Kiruna", "Ystad", "Lund"], levelIndex: 3)
            }
        }
        #expect(choices(42) == choices(42))
        #expect(choices(42) != choices(43))
    }

    @Test("a brake answer is right as often as the skill says, else a plausible wrong one, never the right one")
    func brakeAnswers() {
        let others = ["Ystad", "Kiruna", "Lund", "Malmö", "Umeå", "Luleå"]
        for skill in [0.1, 0.5, 1.0] {
            var brain = BotBrain(skill: skill, seed: 9)
            var right = 0
            for _ in 0..<3000 {
                let answer = brain.brakeAnswer(right: "Visby", others: others + ["visby"], levelIndex: 2)
                if answer == "Visby" { right += 1 } else { #expect(others.contains(answer), "\(answer)") }
            }
            let expected = BotBrain.rightChance(skill: skill, levelIndex: 2)
            #expect(abs(Double(right) / 3000 - expected) < 0.04, "skill \(skill): \(right)")
        }
        // Not knowing the destination, a bot guesses among the candidates.
        var brain = BotBrain(skill: 1, seed: 2)
        #expect(others.contains(brain.brakeAnswer(right: nil, others: others, levelIndex: 5)))
        #expect(BotBrain.rightChance(skill: 1, levelIndex: 5) > BotBrain.rightChance(skill: 0.2, levelIndex: 5))
        // Typing takes a human while, and never longer than the brake allows.
        for _ in 0..<500 {
            let delay = brain.typingDelay(limitMs: 13_500)
            #expect((800...13_500).contains(delay))
            #expect(brain.typingDelay(limitMs: 500) <= 500)
        }
    }

    @Test("followups: sometimes left, sometimes right; options picked among; a number missed by a little")
    func followupAnswers() {
        var brain = BotBrain(skill: 0.5, seed: 4)
        var answered = 0
        var right = 0
        for _ in 0..<3000 {
            guard
                let (answer, delay) = brain.followupAnswer(
                    right: "1995", options: ["1995", "2001", "1989"], others: [], limitMs: 18_000)
            else { continue }
            answered += 1
            if answer == "1995" { right += 1 }
            #expect(["1995", "2001", "1989"].contains(answer))
            #expect((1000...18_000).contains(delay))
        }
        let answerChance = BotBrain.followupAnswerChance(skill: 0.5)
        #expect(abs(Double(answered) / 3000 - answerChance) < 0.04, "\(answered)")
        #expect(abs(Double(right) / Double(answered) - BotBrain.followupRightChance(skill: 0.5)) < 0.05)
        for _ in 0..<300 {
            guard let (answer, _) = brain.followupAnswer(right: "1361", options: nil, others: [], limitMs: 18_000)
            else { continue }
            let year = Int(answer)!
            #expect(abs(year - 1361) <= 30)
        }
        // Without the answer in the packs: an option, or one of the other answers.
        for _ in 0..<100 {
            if let (answer, _) = brain.followupAnswer(right: nil, options: nil, others: ["Hansa"], limitMs: 5000) {
                #expect(answer == "Hansa")
            }
        }
    }

    @Test("the packs tell a bot the destination of a clue shown and the answer of a followup, and near misses")
    func atlas() throws {
        let (atlas, skipped) = try BotAtlas.load(folder: Self.packs)
        #expect(skipped.isEmpty)
        #expect(atlas.packs.count >= 2 && atlas.destinationCount >= 10)
        let pack = try #require(atlas.packs.first { $0.packId == "en-europe" })
        let vienna = try #require(pack.destinations.first { $0.name == "Vienna" })
        // As the clue is shown, and typed differently.
        #expect(atlas.destination(clue: vienna.clues[2].text)?.name == "Vienna")
        #expect(atlas.destination(clue: vienna.clues[0].text.uppercased() + " ")?.name == "Vienna")
        #expect(atlas.destination(clue: "A city nobody wrote a clue about.") == nil)
        let followup = try #require(vienna.followups.first)
        #expect(atlas.followup(question: followup.question)?.answer == followup.answer)
        // Wrong answers: never the destination, its own pack's first.
        let others = atlas.otherNames(than: vienna, packId: "en-europe", language: .en)
        #expect(!others.contains("Vienna"))
        let europe = Set(pack.destinations.map(\.name))
        #expect(others.prefix(pack.destinations.count - 1).allSatisfy { europe.contains($0) })
        #expect(!atlas.otherAnswers(than: followup.question).isEmpty)
        // Without packs, well-known places.
        #expect(BotAtlas().otherNames(than: nil, packId: "x", language: .sv) == BotAtlas.wellKnown)
        // A pack folder itself works too.
        #expect(try BotAtlas.load(folder: Self.packs + "/en-europe").atlas.packs.count == 1)
        #expect(throws: ConsoleError.self) { try BotAtlas.load(folder: "/nonexistent/packs") }
    }

    /// A mind that is sure to pull and to answer, for the moments its plans fit.
    static func mind(seed: UInt64 = 5) -> BotMind {
        BotMind(brain: BotBrain(skill: 1, seed: seed), atlas: BotAtlas())
    }

    @Test("a bot plans a pull once per clue, and pulls only while that clue stands free, stamped with its clock")
    func pullPlans() throws {
        // Over seeds: some plan a pull on the 8-point clue, some do not, none twice.
        var planned = 0
        let state = Fixture.state(.player, Fixture.projection(.clueLevel))
        for seed in 0..<200 {
            var mind = Self.mind(seed: UInt64(seed))
            let plans = mind.plans(for: state)
            #expect(plans.count <= 1)
            #expect(mind.plans(for: state).isEmpty)
            if let plan = plans.first {
                planned += 1
                #expect(plan.action == .pull(.init(round: 1, levelPoints: 8)))
            }
        }
        #expect(planned > 50 && planned < 150, "\(planned)")

        let pull = BotMind.Action.pull(.init(round: 1, levelPoints: 8))
        #expect(
            BotMind.message(for: pull, state: state, at: 777)
                == .brakePull(.init(atClientMs: 777, levelPoints: 8)))
        // The clue moved on, someone holds the brake, the game is paused, the answer is locked: no pull.
        let moved = Fixture.state(
            .player,
            Fixture.projection(.clueLevel) {
                $0["clue"] = ["levelPoints": 6, "levelIndex": 3, "totalLevels": 5, "clueText": "Another clue."]
            })
        let braked = Fixture.state(
            .player,
            Fixture.projection(.pausedForBrake) {
                $0["brake"] = ["brakeOwnerPlayerId": "p_1", "levelPoints": 8, "deadlineServerMs": Fixture.now + 9000]
            })
        let paused = Fixture.state(.player, Fixture.projection(.clueLevel) { $0["paused"] = true })
        let locked = Fixture.state(
            .player,
            Fixture.projection(.clueLevel) { $0["lockedAnswers"] = [["playerId": "p_0", "lockedAtLevelPoints": 10]] })
        for state in [moved, braked, paused, locked] { #expect(BotMind.message(for: pull, state: state, at: 1) == nil) }
        // A bot whose answer is locked does not even plan one.
        for seed in 0..<50 {
            var mind = Self.mind(seed: UInt64(seed))
            #expect(mind.plans(for: locked).isEmpty)
        }
    }

    @Test("a bot answers its own brake in time, with the pack's answer when it knows the clue; and followups")
    func answerPlans() throws {
        let (atlas, _) = try BotAtlas.load(folder: Self.packs)
        let vienna = try #require(atlas.packs.flatMap(\.destinations).first { $0.name == "Vienna" })
        let clue: [String: Any] = [
            "levelPoints": 8, "levelIndex": 2, "totalLevels": 5, "clueText": vienna.clues[1].text,
        ]
        let showing = Fixture.state(.player, Fixture.projection(.clueLevel) { $0["clue"] = clue })
        let mine = Fixture.state(
            .player,
            Fixture.projection(.pausedForBrake) {
                $0["clue"] = clue
                $0["brake"] = ["brakeOwnerPlayerId": "p_0", "levelPoints": 8, "deadlineServerMs": Fixture.now + 9000]
            })
        var rightCount = 0
        for seed in 0..<100 {
            var mind = BotMind(brain: BotBrain(skill: 1, seed: UInt64(seed)), atlas: atlas)
            _ = mind.plans(for: showing)
            #expect(mind.knownDestination?.name == "Vienna")
            let plans = mind.plans(for: mine)
            let plan = try #require(plans.first)
            guard case .brakeAnswer(let key, let text) = plan.action else {
                Issue.record("\(plans)")
                continue
            }
            #expect(key == .init(round: 1, levelPoints: 8))
            #expect(plan.afterMs <= 15_000 - 1500)
            if text == "Vienna" { rightCount += 1 }
            #expect(
                BotMind.message(for: plan.action, state: mine, at: 0) == .brakeAnswerSubmit(.init(answerText: text)))
            #expect(BotMind.message(for: plan.action, state: showing, at: 0) == nil)
            #expect(mind.plans(for: mine).isEmpty)
        }
        #expect(rightCount > 85, "\(rightCount)")

        // Someone else's brake: nothing to answer.
        let theirs = Fixture.state(
            .player,
            Fixture.projection(.pausedForBrake) {
                $0["brake"] = ["brakeOwnerPlayerId": "p_1", "levelPoints": 8, "deadlineServerMs": Fixture.now + 9000]
            })
        var mind = Self.mind()
        #expect(mind.plans(for: theirs).isEmpty)

        // A followup: an option, sent while it is open.
        let followup = Fixture.state(.player, Fixture.projection(.followupQuestion))
        var answered = 0
        for seed in 0..<100 {
            var mind = Self.mind(seed: UInt64(seed))
            guard let plan = mind.plans(for: followup).first else { continue }
            answered += 1
            guard case .followupAnswer(round: 1, index: 1, let text) = plan.action else {
                Issue.record("\(plan)")
                continue
            }
            #expect(["1995", "2001"].contains(text))
            #expect(plan.afterMs <= 20_000 - 2000)
            #expect(BotMind.message(for: plan.action, state: followup, at: 0) != nil)
        }
        #expect(answered > 80)
    }

    @Test("a crowd's names are distinct, friendly and short enough; skills vary around the level; seeds repeat")
    func roster() {
        var roster = BotRoster(skill: 0.5, seed: 11)
        let names = (0..<50).map { _ in roster.takeName() }
        #expect(Set(names).count == 50)
        #expect(names.allSatisfy { $0.hasPrefix("Bot ") && $0.count <= 20 })
        #expect(names[0] == "Bot Astrid" && names[24] == "Bot Astrid 2")
        let profiles = (0..<50).map { _ in roster.next() }
        #expect(profiles.allSatisfy { (0.35...0.65).contains($0.skill) })
        #expect(Set(profiles.map(\.brainSeed)).count == 50)
        var again = BotRoster(skill: 0.5, seed: 11)
        _ = (0..<50).map { _ in again.takeName() }
        #expect((0..<50).map { _ in again.next() } == profiles)
        var extreme = BotRoster(skill: 1, seed: 1)
        #expect((0..<50).allSatisfy { _ in extreme.next().skill <= 1 })
    }
}
