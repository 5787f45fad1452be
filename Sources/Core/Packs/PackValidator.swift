import Foundation

/// One thing wrong with a pack, located by file and JSON path.
public struct PackProblem: Sendable, Equatable, CustomStringConvertible {
    public var file: String
    public var path: String
    public var reason: String

    init(file: String = "", path: JSONPath, reason: String) {
        self.file = file
        self.path = path.description
        self.reason = reason
    }

    /// A problem found outside the validator, at a path written as the validator writes them.
    public init(path: String, reason: String) {
        file = ""
        self.path = path
        self.reason = reason
    }

    public var description: String { file.isEmpty ? "\(path): \(reason)" : "\(file): \(path): \(reason)" }
}

/// Checks a pack.json against docs/packs.md: the schema first, then the blueprint's content rules
/// (section 10.3). Pure: the caller reads the files.
public enum PackValidator {
    public static let cluePoints = [10, 8, 6, 4, 2]

    /// Decodes and checks one pack file. `pack` is nil when the file cannot be read as a pack at all.
    public static func validate(data: Data, file: String) -> (pack: Pack?, problems: [PackProblem]) {
        let root = JSONPath()
        let value: JSONValue
        do {
            value = try JSONDecoder().decode(JSONValue.self, from: data)
        } catch {
            return (nil, [PackProblem(file: file, path: root, reason: "is not valid JSON (\(syntaxError(error)))")])
        }
        // The decoder keeps one value of a key written twice: what it dropped is reported, not lost.
        var problems = JSONDuplicateKeys.find(in: data).map {
            PackProblem(
                path: $0.path, reason: "the key \"\($0.key)\" appears \($0.count == 2 ? "twice" : "\($0.count) times")")
        }
        problems += PackSchema.check(value, against: PackSchema.pack, at: root)
        guard problems.isEmpty else { return (nil, problems.map { $0.in(file) }) }
        // The schema knows a two-letter string; the box speaks these languages.
        if case .object(let fields) = value, case .string(let code)? = fields["language"],
            Language(rawValue: code) == nil
        {
            let known = Language.allCases.map(\.rawValue).joined(separator: " or ")
            return (
                nil, [PackProblem(file: file, path: root.key("language"), reason: "must be \(known), not \"\(code)\"")]
            )
        }
        let pack: Pack
        do {
            pack = try JSONDecoder().decode(Pack.self, from: data)
        } catch {
            return (nil, [PackProblem(file: file, path: root, reason: "cannot be read as a pack (\(error))")])
        }
        problems = check(pack)
        return (pack, problems.map { $0.in(file) })
    }

    /// Packs validated together must not share an id.
    public static func checkTogether(_ packs: [(file: String, pack: Pack)]) -> [PackProblem] {
        var firstFile: [String: String] = [:]
        var problems: [PackProblem] = []
        for (file, pack) in packs {
            if let other = firstFile[pack.packId] {
                problems.append(
                    PackProblem(
                        file: file, path: JSONPath().key("packId"),
                        reason: "\"\(pack.packId)\" is also the id of \(other)"))
            } else {
                firstFile[pack.packId] = file
            }
        }
        return problems
    }

    /// The content rules, on a pack that already has the right shape.
    public static func check(_ pack: Pack) -> [PackProblem] {
        let root = JSONPath()
        var problems: [PackProblem] = []
        func problem(_ path: JSONPath, _ reason: String) { problems.append(PackProblem(path: path, reason: reason)) }

        if !isSlug(pack.packId) {
            problem(root.key("packId"), "must use only lowercase letters, digits and \"-\", found \"\(pack.packId)\"")
        }
        if pack.version.split(separator: ".", omittingEmptySubsequences: false).count != 3
            || !pack.version.split(separator: ".").allSatisfy({
                !$0.isEmpty && $0.allSatisfy(\.isASCII) && Int($0) != nil
            })
        {
            problem(root.key("version"), "must be MAJOR.MINOR.PATCH, found \"\(pack.version)\"")
        }

        var destinationIds: [String: Int] = [:]
        var destinationNames: [String: Int] = [:]
        for (d, destination) in pack.destinations.enumerated() {
            let at = root.key("destinations").index(d)
            if !isSlug(destination.id) {
                problem(at.key("id"), "must use only lowercase letters, digits and \"-\", found \"\(destination.id)\"")
            }
            if let first = destinationIds[destination.id] {
                problem(at.key("id"), "\"\(destination.id)\" is also the id of destinations[\(first)]")
            } else {
                destinationIds[destination.id] = d
            }
            // A place is named in words: digits alone ("123") or a dash are not a name a player can give.
            // Such a name is not also compared with the others' names.
            let nameKey = AnswerText.normalized(destination.name)
            if !nameKey.contains(where: \.isLetter) {
                problem(at.key("name"), "has no letters")
            } else if let first = destinationNames[nameKey] {
                problem(at.key("name"), "\"\(destination.name)\" is also the name of destinations[\(first)]")
            } else {
                destinationNames[nameKey] = d
            }
            for (a, alias) in destination.aliases.enumerated() where AnswerText.normalized(alias).isEmpty {
                problem(at.key("aliases").index(a), "has no letters or digits")
            }
            problems += check(destination, at: at)
            if pack.difficulty == .easy { problems += checkForChildren(destination, at: at) }
        }
        return problems
    }

    /// How many of the pack's claims a reader checked against a source, of how many.
    public static func checkedClaims(_ pack: Pack) -> (checked: Int, total: Int) {
        let claims = pack.destinations.flatMap { $0.clues.flatMap(\.claims) }
        return (claims.count { $0.verification?.status == .checked }, claims.count)
    }

    /// An `easy` pack is for a nine-year-old: the 10-point clue holds no year before 1900 (a child
    /// cannot place it), and every followup has options to choose from.
    private static func checkForChildren(_ destination: Destination, at: JSONPath) -> [PackProblem] {
        var problems: [PackProblem] = []
        if let first = destination.clues.first, first.points == 10,
            let year = yearsBefore1900(in: first.text).first
        {
            problems.append(
                PackProblem(
                    path: at.key("clues").index(0).key("text"),
                    reason: "an easy pack's 10-point clue must not lean on a year before 1900, found \(year)"))
        }
        for (f, followup) in destination.followups.enumerated() where followup.options == nil {
            problems.append(
                PackProblem(
                    path: at.key("followups").index(f).key("options"),
                    reason: "an easy pack's followups need options to choose from"))
        }
        return problems
    }

    /// Numbers written as years from 1000 to 1899 ("1873", "1600-talet", "the 1800s").
    static func yearsBefore1900(in text: String) -> [Int] {
        var years: [Int] = []
        var digits = ""
        for character in text + " " {
            if character.isASCII, character.isNumber {
                digits.append(character)
                continue
            }
            if digits.count == 4, let year = Int(digits), (1000..<1900).contains(year) { years.append(year) }
            digits = ""
        }
        return years
    }

    /// What a pack author should hear about but the box plays anyway: `pack validate` prints it as
    /// a warning, and the box loads the pack. Today one thing: the answer standing in one place
    /// among the options (first, second, …) in over two thirds of the pack's six or more
    /// multiple-choice followups, where players soon learn to look.
    public static func advice(_ pack: Pack, file: String = "") -> [PackProblem] {
        guard let (place, count, total) = commonestAnswerPlace(pack), total >= 6, count * 3 > total * 2 else {
            return []
        }
        return [
            PackProblem(
                file: file, path: JSONPath().key("destinations"),
                reason:
                    "the answer is option \(place + 1) in \(count) of the \(total) followups with options: players learn where to look; put the answers in different places"
            )
        ]
    }

    /// The option place that holds the answer most often, over the pack's multiple-choice followups:
    /// the place (from 0), how many answers stand there, and how many followups have options.
    private static func commonestAnswerPlace(_ pack: Pack) -> (place: Int, count: Int, total: Int)? {
        var places: [Int: Int] = [:]
        for followup in pack.destinations.flatMap(\.followups) {
            guard let options = followup.options,
                let place = options.firstIndex(where: AnswerKey.followup(followup).accepts)
            else { continue }
            places[place, default: 0] += 1
        }
        let total = places.values.reduce(0, +)
        return places.max { $0.value < $1.value || ($0.value == $1.value && $0.key > $1.key) }.map {
            (place: $0.key, count: $0.value, total: total)
        }
    }

    private static func check(_ destination: Destination, at: JSONPath) -> [PackProblem] {
        var problems: [PackProblem] = []
        func problem(_ path: JSONPath, _ reason: String) { problems.append(PackProblem(path: path, reason: reason)) }

        let points = destination.clues.map(\.points)
        if points != cluePoints {
            problem(
                at.key("clues"),
                "points must be 10, 8, 6, 4, 2 in that order, found \(points.map(String.init).joined(separator: ", "))")
        }

        let names = [destination.name] + destination.aliases
        let countries = [destination.country] + (destination.countryAliases ?? [])
        // Each text split into words once: the checks below look for many terms in each.
        let nameTerms = names.map(Term.init)
        let countryTerms = countries.map(Term.init)
        let clueWords = destination.clues.map { AnswerText.words($0.text) }
        let countryForms = Set(countryTerms.map { $0.words.joined() })
        // A city-state (Singapore, Monaco) is its country; anywhere else the country is a wrong answer.
        let isCityState = countryForms.contains(nameTerms[0].words.joined())
        for (a, alias) in nameTerms.dropFirst().enumerated()
        where !isCityState && countryForms.contains(alias.words.joined()) {
            problem(
                at.key("aliases").index(a),
                "\"\(alias.text)\" is the country: a player who names the country would score")
        }
        var claimIds: Set<String> = []
        for (c, clue) in destination.clues.enumerated() {
            let clueAt = at.key("clues").index(c)
            let words = clueWords[c]
            if let leak = nameTerms.first(where: { $0.isMentioned(in: words) }) {
                problem(clueAt.key("text"), "gives the answer away: it names \"\(leak.text)\"")
            }
            if clue.points == 10, let leak = countryTerms.first(where: { $0.isMentioned(in: words) }) {
                problem(
                    clueAt.key("text"), "the 10-point clue must not name the country, but it names \"\(leak.text)\"")
            }
            let claimed = Set(clue.claims.flatMap { AnswerText.words($0.statement) })
            if let word = words.first(where: { Self.superlatives.contains($0) && !claimed.contains($0) }) {
                problem(
                    clueAt.key("text"),
                    "says \"\(word)\": a superlative needs a claim of this clue that states it (blueprint 10.3)")
            }
            if clue.points == 10, let continent = Self.continentTerms.first(where: { $0.isMentioned(in: words) }) {
                problem(
                    clueAt.key("text"),
                    "the 10-point clue must not name the continent, but it says \"\(continent.text)\"")
            }
            for (k, claim) in clue.claims.enumerated() {
                let claimAt = clueAt.key("claims").index(k)
                if !claimIds.insert(claim.id).inserted {
                    problem(claimAt.key("id"), "\"\(claim.id)\" is used by another claim of this destination")
                }
                if let verification = claim.verification, verification.status == .checked,
                    (verification.with ?? "").trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
                {
                    problem(claimAt.key("verification").key("with"), "a checked claim says what it was checked against")
                }
            }
        }

        let revealWords = AnswerText.words(destination.revealText)
        for (f, followup) in destination.followups.enumerated() {
            let followupAt = at.key("followups").index(f)
            let answers = [followup.answer] + (followup.accepted ?? [])
            let answerTerms = answers.map(Term.init)
            for answer in answerTerms where answer.words.isEmpty {
                problem(followupAt.key("answer"), "\"\(answer.text)\" has no letters or digits")
            }
            for (c, clue) in destination.clues.enumerated() {
                if let leak = answerTerms.first(where: { $0.isMentioned(in: clueWords[c]) }) {
                    problem(
                        followupAt.key("answer"),
                        "\"\(leak.text)\" already appears in clues[\(c)] (\(clue.points) points)")
                }
            }
            let questionWords = AnswerText.words(followup.question)
            if let leak = answerTerms.first(where: { $0.isMentioned(in: questionWords) }) {
                problem(followupAt.key("question"), "contains its own answer \"\(leak.text)\"")
            }
            // The reveal is read out just before the followups.
            if let leak = answerTerms.first(where: { $0.isMentioned(in: revealWords) }) {
                problem(followupAt.key("answer"), "\"\(leak.text)\" is already said by the revealText")
            }
            // An answer shown to players (the answer, an option) that is built on the destination's name
            // (Zeebrugge for Brugge) is guessed from the name.
            for answer in [followup.answer] + (followup.options ?? []) {
                let joined = AnswerText.words(answer).joined()
                if let name = nameTerms.first(where: {
                    let form = $0.words.joined()
                    return form.count >= 4 && joined.contains(form)
                }) {
                    problem(
                        followupAt.key("answer"), "\"\(answer)\" contains the destination's name \"\(name.text)\"")
                }
            }
            if let options = followup.options {
                let normalizedOptions = options.map(AnswerText.normalized)
                if Set(normalizedOptions).count != options.count {
                    problem(followupAt.key("options"), "has two options that read the same")
                }
                let key = AnswerKey.followup(followup)
                let correct = options.filter(key.accepts)
                if correct.isEmpty {
                    problem(followupAt.key("options"), "none of the options is the answer \"\(followup.answer)\"")
                } else if correct.count > 1 {
                    problem(
                        followupAt.key("options"),
                        "more than one option is accepted: \(correct.map { "\"\($0)\"" }.joined(separator: ", "))")
                }
            }
        }
        return problems
    }

    /// Continents and the words made from them, in both languages: at 10 points they halve the map.
    /// A one-word name also catches its adjective ("European", "Asian"). "America", "American" and
    /// "Amerika" are left out: they usually mean the United States, which the country rule covers.
    static let continents = [
        "Europe", "Asia", "Africa", "Oceania", "Antarctica", "Americas", "North America", "South America",
        "Central America", "Latin America", "Europa", "europeisk", "Asien", "asiatisk", "Afrika", "afrikansk",
        "Oceanien", "Antarktis", "Nordamerika", "nordamerikansk", "Sydamerika", "sydamerikansk", "Centralamerika",
        "Latinamerika", "latinamerikansk",
    ]

    /// Words that claim a record ("the oldest", "största"). Blueprint 10.3: only when a source says so,
    /// so a clue that uses one must have a claim that states it.
    static let superlatives: Set<String> = [
        "largest", "biggest", "oldest", "tallest", "highest", "longest", "deepest", "smallest", "first",
        "northernmost", "southernmost", "easternmost", "westernmost", "best",
        "storsta", "aldsta", "hogsta", "langsta", "minsta", "djupaste", "forsta", "forste", "enda",
        "nordligaste", "sydligaste", "ostligaste", "vastligaste", "folkrikaste", "basta",
    ]

    /// Whether `words` (a clue, already split) names `term`: the term's words in sequence, or for a
    /// one-word term of four or more letters, a word that starts with it and adds at most three letters
    /// (Swedish genitive "Göteborgs", inflections such as "Romas").
    public static func mentions(_ words: [String], _ term: String) -> Bool {
        Term(term).isMentioned(in: words)
    }

    /// A term looked for in texts, split into words once.
    struct Term {
        let text: String
        let words: [String]

        init(_ text: String) {
            self.text = text
            words = AnswerText.words(text)
        }

        /// `PackValidator.mentions`.
        func isMentioned(in text: [String]) -> Bool {
            guard !words.isEmpty, text.count >= words.count else { return false }
            if words.count == 1, let only = words.first, only.count >= 4 {
                return text.contains { $0.hasPrefix(only) && $0.count - only.count <= 3 }
            }
            return (0...(text.count - words.count)).contains { text[$0..<$0 + words.count].elementsEqual(words) }
        }
    }

    static let continentTerms = continents.map(Term.init)

    private static func isSlug(_ text: String) -> Bool {
        !text.isEmpty
            && text.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" }
            && text.first != "-" && text.last != "-"
    }

    private static func syntaxError(_ error: any Error) -> String {
        if case DecodingError.dataCorrupted(let context) = error {
            let underlying = (context.underlyingError as NSError?)?.userInfo[NSDebugDescriptionErrorKey] as? String
            return underlying ?? context.debugDescription
        }
        return "\(error)"
    }
}

extension PackProblem {
    func `in`(_ file: String) -> PackProblem {
        var copy = self
        copy.file = file
        return copy
    }
}
