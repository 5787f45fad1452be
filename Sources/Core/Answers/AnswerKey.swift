/// The accepted answers of one question, normalised once, and the rule that checks a player's answer.
public struct AnswerKey: Sendable, Equatable {
    /// Jaro-Winkler similarity from which a destination answer counts as a spelling slip of an accepted one.
    public static let fuzzyThreshold = 0.92
    /// Below this many letters a near match is a different place more often than a typo (Bern/Berlin).
    public static let fuzzyMinimumLength = 5

    public let accepted: [String]
    public let allowsFuzzy: Bool

    private init(accepted: [String], allowsFuzzy: Bool) {
        self.accepted = accepted.map(AnswerText.normalized).filter { !$0.isEmpty }
        self.allowsFuzzy = allowsFuzzy
    }

    /// Destinations accept their name and aliases, and near spellings of them.
    public static func destination(_ destination: Destination) -> AnswerKey {
        AnswerKey(accepted: [destination.name] + destination.aliases, allowsFuzzy: true)
    }

    /// Followups accept their answer and its variants, exactly (after normalisation).
    public static func followup(_ followup: Followup) -> AnswerKey {
        AnswerKey(accepted: [followup.answer] + (followup.accepted ?? []), allowsFuzzy: false)
    }

    public func accepts(_ answer: String) -> Bool {
        let given = AnswerText.normalized(answer)
        guard !given.isEmpty else { return false }
        if accepted.contains(given) { return true }
        guard allowsFuzzy, given.count >= Self.fuzzyMinimumLength else { return false }
        return accepted.contains { candidate in
            candidate.count >= Self.fuzzyMinimumLength && jaroWinkler(given, candidate) >= Self.fuzzyThreshold
        }
    }
}
