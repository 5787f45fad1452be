/// A content pack as stored in `packs/<packId>/pack.json` (see docs/packs.md).
public struct Pack: Codable, Sendable, Equatable {
    public var format: Int
    public var packId: String
    public var title: String
    public var description: String?
    public var language: Language
    public var version: String
    /// Who the pack is written for; a pack that says nothing is `standard`.
    public var difficulty: PackDifficulty?
    public var licence: String
    public var attribution: String?
    public var destinations: [Destination]

    public init(
        format: Int = 1, packId: String, title: String, description: String? = nil, language: Language,
        version: String, difficulty: PackDifficulty? = nil, licence: String, attribution: String? = nil,
        destinations: [Destination]
    ) {
        self.format = format
        self.packId = packId
        self.title = title
        self.description = description
        self.language = language
        self.version = version
        self.difficulty = difficulty
        self.licence = licence
        self.attribution = attribution
        self.destinations = destinations
    }
}

public enum Language: String, Codable, Sendable, CaseIterable {
    case sv, en
}

/// `easy` packs are for children (docs/packs.md, "Packs for children"), `hard` ones for quiz fans.
public enum PackDifficulty: String, Codable, Sendable, CaseIterable {
    case easy, standard, hard
}

public struct Destination: Codable, Sendable, Equatable {
    public var id: String
    public var name: String
    public var aliases: [String]
    public var country: String
    public var countryAliases: [String]?
    public var region: String
    public var lat: Double
    public var lon: Double
    public var revealText: String
    public var clues: [Clue]
    public var followups: [Followup]
    public var banter: [String]?

    public init(
        id: String, name: String, aliases: [String], country: String, countryAliases: [String]? = nil,
        region: String, lat: Double, lon: Double, revealText: String, clues: [Clue], followups: [Followup],
        banter: [String]? = nil
    ) {
        self.id = id
        self.name = name
        self.aliases = aliases
        self.country = country
        self.countryAliases = countryAliases
        self.region = region
        self.lat = lat
        self.lon = lon
        self.revealText = revealText
        self.clues = clues
        self.followups = followups
        self.banter = banter
    }

    /// Every source behind the clues, in order, without repeats: the host's pro view shows them.
    public var sources: [String] {
        var seen = Set<String>()
        return clues.flatMap { $0.claims.flatMap(\.sources) }.filter { seen.insert($0).inserted }
    }
}

public struct Clue: Codable, Sendable, Equatable {
    public var points: Int
    public var text: String
    public var claims: [Claim]

    public init(points: Int, text: String, claims: [Claim]) {
        self.points = points
        self.text = text
        self.claims = claims
    }
}

public struct Claim: Codable, Sendable, Equatable {
    public var id: String
    public var statement: String
    public var sources: [String]
    /// Whether a second reader checked the statement against a source, and against what.
    public var verification: ClaimVerification?

    public init(id: String, statement: String, sources: [String], verification: ClaimVerification? = nil) {
        self.id = id
        self.statement = statement
        self.sources = sources
        self.verification = verification
    }
}

public struct ClaimVerification: Codable, Sendable, Equatable {
    public enum Status: String, Codable, Sendable, CaseIterable {
        case checked, unchecked
    }

    public var status: Status
    /// For `checked`: what the statement was checked against (a source and what it says).
    public var with: String?

    public init(status: Status, with: String? = nil) {
        self.status = status
        self.with = with
    }
}

public struct Followup: Codable, Sendable, Equatable {
    public var question: String
    public var answer: String
    public var accepted: [String]?
    public var options: [String]?
    public var sources: [String]

    public init(
        question: String, answer: String, accepted: [String]? = nil, options: [String]? = nil, sources: [String]
    ) {
        self.question = question
        self.answer = answer
        self.accepted = accepted
        self.options = options
        self.sources = sources
    }
}
