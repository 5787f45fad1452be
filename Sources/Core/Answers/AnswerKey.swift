/// The accepted answers of one question, normalised once, and the rule that checks a player's answer.
public struct AnswerKey: Sendable, Equatable {
    /// Jaro-Winkler similarity from which a destination answer counts as a spelling slip of an accepted one.
    public static let fuzzyThreshold = 0.92
    /// Below this many letters a near match is a different place more often than a typo (Bern/Berlin).
    public static let fuzzyMinimumLength = 5

    public let accepted: [String]
    public let allowsFuzzy: Bool
    /// The accepted answers with their stopwords kept ("mexicocity").
    private let acceptedInFull: [String]
    /// Answers that name the country rather than the place: never accepted on their own, even when
    /// dropping a stopword makes a name read like its country ("Mexico City" → "mexico"). A country
    /// that is the place's name in full is the place (Singapore, Monaco) and is not among them.
    private let countries: [String]

    private init(accepted: [String], allowsFuzzy: Bool, countries: [String] = []) {
        self.accepted = accepted.map(AnswerText.normalized).filter { !$0.isEmpty }
        let acceptedInFull = accepted.map { AnswerText.words($0).joined() }
        self.acceptedInFull = acceptedInFull
        self.allowsFuzzy = allowsFuzzy
        self.countries = countries.filter { !acceptedInFull.contains(AnswerText.words($0).joined()) }
            .map(AnswerText.normalized).filter { !$0.isEmpty }
    }

    /// Destinations accept their name and aliases, and near spellings of them — but not their country.
    public static func destination(_ destination: Destination) -> AnswerKey {
        AnswerKey(
            accepted: [destination.name] + destination.aliases, allowsFuzzy: true,
            countries: [destination.country] + (destination.countryAliases ?? []))
    }

    /// Followups accept their answer and its variants, exactly (after normalisation).
    public static func followup(_ followup: Followup) -> AnswerKey {
        AnswerKey(accepted: [followup.answer] + (followup.accepted ?? []), allowsFuzzy: false)
    }

    public func accepts(_ answer: String) -> Bool {
        let given = AnswerText.normalized(answer)
        guard !given.isEmpty else { return false }
        if acceptedInFull.contains(AnswerText.words(answer).joined()) { return true }
        if countries.contains(given) { return false }
        if accepted.contains(given) { return true }
        guard allowsFuzzy, given.count >= Self.fuzzyMinimumLength else { return false }
        return accepted.contains { candidate in
            candidate.count >= Self.fuzzyMinimumLength && jaroWinkler(given, candidate) >= Self.fuzzyThreshold
        }
    }
}
