import Core
import Foundation

/// How a bot plays, as chances and delays drawn from its own seeded generator: the same seed and
/// the same game give the same choices. `skill` runs from 0 (slow, knows nothing) to 1 (quick,
/// knows nearly everything in its packs).
struct BotBrain: Sendable {
    let skill: Double
    private var random: SplitMix64

    init(skill: Double, seed: UInt64) {
        self.skill = min(1, max(0, skill))
        random = SplitMix64(seed: seed)
    }

    // MARK: The brake

    /// The chance that the bot pulls on the clue at `levelIndex` (1: the 10-point clue … 5: the
    /// 2-point one), asked once per clue it sees while it has not answered the destination. Rises
    /// with every clue for everyone (later clues give more away, and the last ones invite a
    /// guess); a skilled bot's rises from the first clue, an unskilled one's only from the guesses.
    static func pullChance(skill: Double, levelIndex: Int) -> Double {
        let step = Double(min(max(levelIndex, 1), 5) - 1)
        return min(0.95, pow(skill, 1.5) * (0.25 + 0.18 * step) + 0.06 * step)
    }

    /// The middle of a bot's reaction times, in milliseconds: 1 s for the best, 4 s for the slowest.
    static func medianReactionMs(skill: Double) -> Double { 1000 + 3000 * (1 - skill) }

    /// When the bot pulls on a clue it has just been shown, in milliseconds after it saw it; nil
    /// when it lets this clue go by.
    mutating func pullDelay(levelIndex: Int) -> Int? {
        guard unit() < Self.pullChance(skill: skill, levelIndex: levelIndex) else { return nil }
        return reaction(medianMs: Self.medianReactionMs(skill: skill), spread: 0.45, withinMs: 250...15_000)
    }

    // MARK: Answers

    /// The chance that a bot which knows the destination's name gives it, at `levelIndex`.
    static func rightChance(skill: Double, levelIndex: Int) -> Double {
        min(0.97, 0.3 + 0.6 * skill + 0.04 * Double(min(max(levelIndex, 1), 5) - 1))
    }

    /// The answer to the bot's own brake: `right` (the destination, when its packs tell it) with
    /// `rightChance`, else one of `others`, the plausible wrong ones (nearest first: the caller
    /// puts the same pack's destinations there); knowing nothing, a guess among `others`.
    mutating func brakeAnswer(right: String?, others: [String], levelIndex: Int) -> String {
        let wrong = others.filter { right == nil || !Self.same($0, right!) }
        if let right, unit() < Self.rightChance(skill: skill, levelIndex: levelIndex) || wrong.isEmpty {
            return right
        }
        // A near miss more often than a wild one: the first few candidates are the nearest.
        let near = wrong.prefix(max(1, wrong.count / 3))
        let pool = unit() < 0.6 ? Array(near) : wrong
        return pool.randomElement(using: &random) ?? "Stockholm"
    }

    /// How long the bot takes to type an answer, in milliseconds: about 2 s for the best, 5 s for
    /// the slowest, always within `limitMs` (the brake's answer time, less a margin).
    mutating func typingDelay(limitMs: Int) -> Int {
        let limit = max(300, limitMs)
        return reaction(medianMs: 2000 + 3000 * (1 - skill), spread: 0.3, withinMs: min(800, limit)...limit)
    }

    /// The chance that a bot answers a followup at all, and that a bot which could know the answer
    /// (its packs have the question) gives it.
    static func followupAnswerChance(skill: Double) -> Double { 0.6 + 0.35 * skill }
    static func followupRightChance(skill: Double) -> Double { 0.25 + 0.6 * skill }

    /// A followup's answer and when to send it (milliseconds after it was shown, within `limitMs`);
    /// nil when the bot lets it pass. `right` is the answer when the packs have it; a wrong answer
    /// is another option, a number near the right one, or one of `others` (other followups' answers).
    mutating func followupAnswer(
        right: String?, options: [String]?, others: [String], limitMs: Int
    )
        -> (answer: String, delayMs: Int)?
    {
        guard unit() < Self.followupAnswerChance(skill: skill) else { return nil }
        let delay = reaction(
            medianMs: 3000 + 4000 * (1 - skill), spread: 0.35,
            withinMs: min(1000, max(300, limitMs))...max(300, limitMs))
        let options = options ?? []
        if let right, unit() < Self.followupRightChance(skill: skill) { return (right, delay) }
        if !options.isEmpty {
            // Not knowing, a pick among the options (right only by luck); knowing it wrong, another one.
            let pool = right == nil ? options : options.filter { !Self.same($0, right!) }
            return ((pool.isEmpty ? options : pool).randomElement(using: &random)!, delay)
        }
        if let right, let number = Int(right.trimmingCharacters(in: .whitespaces)) {
            let miss = Int.random(in: 1...max(2, abs(number) / 50 + 3), using: &random)
            return (String(unit() < 0.5 ? number - miss : number + miss), delay)
        }
        let pool = others.filter { right == nil || !Self.same($0, right!) }
        return (pool.randomElement(using: &random) ?? "?", delay)
    }

    // MARK: Drawing

    /// Uniform in 0..<1.
    mutating func unit() -> Double { Double.random(in: 0..<1, using: &random) }

    /// A draw from the bot's generator, for the caller's own choices (a lag's seed).
    mutating func next() -> UInt64 { random.next() }

    /// A human reaction time: log-normal around `medianMs` (most near it, a long tail of slow ones),
    /// kept within `withinMs`.
    mutating func reaction(medianMs: Double, spread: Double, withinMs range: ClosedRange<Int>) -> Int {
        // Box–Muller: a standard normal from two uniforms.
        let first = max(unit(), 1e-12)
        let normal = (-2 * log(first)).squareRoot() * cos(2 * Double.pi * unit())
        let value = Int((medianMs * exp(spread * normal)).rounded())
        return min(range.upperBound, max(range.lowerBound, value))
    }

    /// Whether two answers are the same once normalised as the box compares them.
    static func same(_ one: String, _ other: String) -> Bool {
        AnswerText.normalized(one) == AnswerText.normalized(other)
    }
}
