import Foundation
import Testing

@testable import Core

@Suite("Pack validation")
struct PackValidatorTests {
    private func problems(_ mutate: (inout [String: Any]) -> Void) throws -> [String] {
        var tree = try Fixture.miniTree()
        mutate(&tree)
        let data = try JSONSerialization.data(withJSONObject: tree)
        return PackValidator.validate(data: data, file: "mini.json").problems.map(\.description)
    }

    private func destination(_ tree: inout [String: Any], _ change: (inout [String: Any]) -> Void) {
        var destinations = tree["destinations"] as! [[String: Any]]
        change(&destinations[0])
        tree["destinations"] = destinations
    }

    private func clue(_ index: Int, _ tree: inout [String: Any], _ change: (inout [String: Any]) -> Void) {
        destination(&tree) { destination in
            var clues = destination["clues"] as! [[String: Any]]
            change(&clues[index])
            destination["clues"] = clues
        }
    }

    private func followup(_ index: Int, _ tree: inout [String: Any], _ change: (inout [String: Any]) -> Void) {
        destination(&tree) { destination in
            var followups = destination["followups"] as! [[String: Any]]
            change(&followups[index])
            destination["followups"] = followups
        }
    }

    /// The problems of the mini pack's text after `edit`: for what a JSON tree cannot hold, such as a key twice.
    private func textProblems(_ edit: (inout String) -> Void) throws -> [String] {
        var text = String(decoding: try Fixture.data("mini.json"), as: UTF8.self)
        edit(&text)
        return PackValidator.validate(data: Data(text.utf8), file: "mini.json").problems.map(\.description)
    }

    private func replacing(_ old: String, with new: String) -> (inout String) -> Void {
        { text in
            #expect(text.contains(old), "the fixture has \(old)")
            text = text.replacingOccurrences(of: old, with: new)
        }
    }

    @Test("the mini fixture is valid")
    func validFixture() throws {
        #expect(try problems { _ in }.isEmpty)
    }

    @Test(
        "the shipped packs: valid with no advice, 12 or more, 72 destinations a language, one id once a language, a children's pack each, every claim's verification said"
    )
    func shippedPacks() throws {
        let packs = Fixture.repositoryRoot.appendingPathComponent("packs")
        let folders = try FileManager.default.contentsOfDirectory(atPath: packs.path).sorted()
        #expect(folders.count >= 12)
        var loaded: [(file: String, pack: Pack)] = []
        for folder in folders {
            let file = packs.appendingPathComponent(folder).appendingPathComponent("pack.json")
            let result = PackValidator.validate(data: try Data(contentsOf: file), file: file.path)
            #expect(result.problems.isEmpty, "\(result.problems)")
            let pack = try #require(result.pack)
            #expect(pack.packId == folder, "a pack's folder is named after its packId")
            #expect(pack.destinations.count >= 12, "\(pack.packId)")
            #expect(PackValidator.advice(pack).isEmpty, "\(pack.packId): \(PackValidator.advice(pack))")
            #expect(pack.difficulty != nil, "\(pack.packId) says who it is for")
            for destination in pack.destinations {
                #expect(destination.followups.count == 3 && !(destination.banter ?? []).isEmpty, "\(destination.id)")
                let claims = destination.clues.flatMap(\.claims)
                #expect(claims.allSatisfy { $0.verification != nil }, "\(pack.packId)/\(destination.id)")
            }
            loaded.append((file.path, pack))
        }
        #expect(PackValidator.checkTogether(loaded).isEmpty)
        for language in Language.allCases {
            let packs = loaded.map(\.pack).filter { $0.language == language }
            let ids = packs.flatMap { $0.destinations.map(\.id) }
            #expect(ids.count >= 72, "\(language.rawValue): \(ids.count) destinations")
            // The mix plays each destination of a language once.
            #expect(Set(ids).count == ids.count, "\(language.rawValue): a destination id in two packs")
            #expect(packs.contains { $0.difficulty == .easy }, "\(language.rawValue): a pack for children")
        }
    }

    @Test("syntax errors are reported, not thrown")
    func notJSON() {
        let result = PackValidator.validate(data: Data("{ \"format\": 1, ".utf8), file: "bad.json")
        #expect(result.pack == nil)
        #expect(result.problems.count == 1)
        #expect(result.problems[0].description.hasPrefix("bad.json: $: is not valid JSON"))
    }

    @Test("schema problems name the path")
    func schema() throws {
        #expect(try problems { $0["format"] = 2 } == ["mini.json: $.format: must be exactly 1, found 2"])
        #expect(try problems { $0["title"] = 5 } == ["mini.json: $.title: must be a string, found a number"])
        #expect(try problems { $0.removeValue(forKey: "licence") } == ["mini.json: $.licence: is required"])
        #expect(try problems { $0["titel"] = "x" } == ["mini.json: $.titel: unknown key"])
        #expect(
            try problems { tree in destination(&tree) { $0["Aliases"] = [] } }.contains(
                "mini.json: $.destinations[0].Aliases: unknown key (did you mean \"aliases\"?)"))
        #expect(
            try problems { tree in destination(&tree) { $0["lat"] = 95.5 } } == [
                "mini.json: $.destinations[0].lat: must be between -90.0 and 90.0, found 95.5"
            ])
        #expect(
            try problems { tree in destination(&tree) { $0["lon"] = "11.9" } } == [
                "mini.json: $.destinations[0].lon: must be a number, found a string"
            ])
        #expect(
            try problems { tree in clue(2, &tree) { $0["points"] = 6.5 } } == [
                "mini.json: $.destinations[0].clues[2].points: must be a whole number, found 6.5"
            ])
        #expect(
            try problems { tree in clue(1, &tree) { $0["claims"] = [] } } == [
                "mini.json: $.destinations[0].clues[1].claims: must have 1–10 entries, has 0"
            ])
        #expect(
            try problems { tree in followup(0, &tree) { $0["sources"] = ["wikipedia"] } } == [
                "mini.json: $.destinations[0].followups[0].sources[0]: must be an http(s) URL, found \"wikipedia\""
            ])
        #expect(
            try problems { tree in destination(&tree) { $0["revealText"] = "   " } } == [
                "mini.json: $.destinations[0].revealText: must not be empty"
            ])
        #expect(
            try problems { tree in
                destination(&tree) { $0["clues"] = Array(($0["clues"] as! [Any]).prefix(4)) }
            } == ["mini.json: $.destinations[0].clues: must have exactly 5 entries, has 4"])
    }

    @Test("a key twice in one object is a problem at that object, not content silently dropped")
    func duplicateKeys() throws {
        #expect(
            try textProblems(
                replacing(
                    "\"name\": \"Gothenburg\",", with: "\"name\": \"Gothenburg\", \"name\": \"Göteborg\",")
            ) == ["mini.json: $.destinations[0]: the key \"name\" appears twice"])
        // The decoder keeps one "clues" and drops the other: both the key and what is left are reported.
        #expect(
            try textProblems(
                replacing(
                    "\"revealText\": \"We are in Gothenburg!\",",
                    with: "\"revealText\": \"We are in Gothenburg!\", \"clues\": [],")
            ) == [
                "mini.json: $.destinations[0]: the key \"clues\" appears twice",
                "mini.json: $.destinations[0].clues: must have exactly 5 entries, has 0",
            ])
        // The same key spelt with an escape, three times, deep in a followup.
        #expect(
            try textProblems(
                replacing(
                    "\"answer\": \"Liseberg\",",
                    with: "\"answer\": \"Liseberg\", \"\\u0061nswer\": \"Tivoli\", \"answe\\u0072\": \"Liseberg\",")
            ) == ["mini.json: $.destinations[0].followups[0]: the key \"answer\" appears 3 times"])
        #expect(
            try textProblems(replacing("\"title\": \"Mini\",", with: "\"title\": \"Mini\", \"title\": \"Maxi\","))
                == ["mini.json: $: the key \"title\" appears twice"])
    }

    @Test("duplicate keys are found in the raw text: escapes, nesting, strings that look like JSON")
    func duplicateKeyScan() throws {
        func found(_ json: String, encoding: String.Encoding = .utf8) throws -> [String] {
            let data = try #require(json.data(using: encoding))
            // Only text the decoder accepts is scanned.
            _ = try JSONDecoder().decode(JSONValue.self, from: data)
            return JSONDuplicateKeys.find(in: data).map { "\($0.path) \($0.key) \($0.count)" }
        }
        #expect(try found(#"{"a": 1, "b": 2, "c": {"a": 3}, "d": [{"a": 4}, {"a": 5}]}"#) == [])
        #expect(try found(#"{"a": 1, "a": 2}"#) == ["$ a 2"])
        #expect(try found(#"{"a": 1, "\u0061": 2, "\u0041": 3, "A": 4}"#) == ["$ a 2", "$ A 2"])
        // Escaped quotes and backslashes inside keys; a value that looks like keys and brackets.
        #expect(
            try found(#"{"q\"": "\"}, \"q\\\"\": [", "q\u0022": 1, "b\\": 1, "b\u005C": 2}"#) == ["$ q\" 2", "$ b\\ 2"])
        // A surrogate pair is the character it encodes; canonically equivalent spellings are one key,
        // as they are in the decoded dictionary.
        #expect(try found(#"{"\ud83d\ude00": 1, "😀": 2, "\u00e9": 1, "e\u0301": 2}"#) == ["$ 😀 2", "$ é 2"])
        #expect(try found(#"{"x": 1, "x": 2, "x": 3, "y": 1, "x": 4}"#) == ["$ x 4"])
        // The path of the object, through arrays and keys, in the order the second spellings appear.
        #expect(
            try found(#"{"list": [1, "[", {"k": 1}, {"k": {"z": 1, "z": 2}, "k": 3}], "top": 1, "top": 2}"#) == [
                "$.list[3].k z 2", "$.list[3] k 2", "$ top 2",
            ])
        #expect(try found(#"[{"a": 1}, [], {"a": 1, "a": 2}]"#) == ["$[2] a 2"])
        // The decoder also reads UTF-16 and UTF-32.
        for encoding: String.Encoding in [
            .utf16, .utf16LittleEndian, .utf16BigEndian, .utf32LittleEndian, .utf32BigEndian,
        ] {
            #expect(try found(#"{"é": {"\u00e9": 1, "é": 2}}"#, encoding: encoding) == ["$.é é 2"], "\(encoding)")
        }
    }

    @Test("every schema problem is reported at once")
    func manyProblems() throws {
        let found = try problems { tree in
            tree["language"] = 1
            destination(&tree) { $0.removeValue(forKey: "country") }
            clue(4, &tree) { $0["text"] = "short" }
        }
        #expect(
            found == [
                "mini.json: $.language: must be a string, found a number",
                "mini.json: $.destinations[0].country: is required",
                "mini.json: $.destinations[0].clues[4].text: must be 10–300 characters long, is 5",
            ])
    }

    @Test("content rules")
    func content() throws {
        #expect(try problems { $0["language"] = "de" } == ["mini.json: $.language: must be sv or en, not \"de\""])
        #expect(
            try problems { $0["packId"] = "Test Mini" } == [
                "mini.json: $.packId: must use only lowercase letters, digits and \"-\", found \"Test Mini\""
            ])
        #expect(
            try problems { $0["version"] = "1.0" } == ["mini.json: $.version: must be MAJOR.MINOR.PATCH, found \"1.0\""]
        )
        #expect(
            try problems { tree in clue(1, &tree) { $0["points"] = 6 } } == [
                "mini.json: $.destinations[0].clues: points must be 10, 8, 6, 4, 2 in that order, found 10, 6, 6, 4, 2"
            ])
        #expect(
            try problems { tree in clue(3, &tree) { $0["text"] = "Welcome to Gothenburg harbour!" } } == [
                "mini.json: $.destinations[0].clues[3].text: gives the answer away: it names \"Gothenburg\""
            ])
        // Through an alias, in a genitive form, with other case and no diacritics.
        #expect(
            try problems { tree in clue(3, &tree) { $0["text"] = "GOTEBORGS hamn is busy." } } == [
                "mini.json: $.destinations[0].clues[3].text: gives the answer away: it names \"Göteborg\""
            ])
        #expect(
            try problems { tree in clue(0, &tree) { $0["text"] = "A port city in Sverige, founded in 1621." } } == [
                "mini.json: $.destinations[0].clues[0].text: the 10-point clue must not name the country, but it names \"Sverige\""
            ])
        #expect(
            try problems { tree in clue(2, &tree) { $0["text"] = "Liseberg opened here in 1923." } } == [
                "mini.json: $.destinations[0].followups[0].answer: \"Liseberg\" already appears in clues[2] (6 points)"
            ])
        #expect(
            try problems { tree in followup(1, &tree) { $0["question"] = "Was it Gustav Adolf who founded it?" } } == [
                "mini.json: $.destinations[0].followups[1].question: contains its own answer \"Gustav Adolf\""
            ])
        #expect(
            try problems { tree in followup(0, &tree) { $0["options"] = ["Gröna Lund", "Tivoli"] } } == [
                "mini.json: $.destinations[0].followups[0].options: none of the options is the answer \"Liseberg\""
            ])
        #expect(
            try problems { tree in followup(0, &tree) { $0["options"] = ["Liseberg", "liseberg!", "Tivoli"] } }
                .contains(
                    "mini.json: $.destinations[0].followups[0].options: has two options that read the same"))
        #expect(
            try problems { tree in
                clue(4, &tree) {
                    $0["claims"] = [["id": "c1", "statement": "The largest but one.", "sources": ["https://a.org/x"]]]
                }
            } == [
                "mini.json: $.destinations[0].clues[4].claims[0].id: \"c1\" is used by another claim of this destination"
            ])
    }

    @Test("a destination's name needs a letter; an alias a letter or digit")
    func nameWithoutLetters() throws {
        for name in ["—", "123", "?!", "1 – 2"] {
            #expect(
                try problems { tree in destination(&tree) { $0["name"] = name } } == [
                    "mini.json: $.destinations[0].name: has no letters"
                ], "\(name)")
        }
        #expect(try problems { tree in destination(&tree) { $0["name"] = "Route 66" } }.isEmpty)
        #expect(
            try problems { tree in destination(&tree) { $0["aliases"] = ["Göteborg", "…"] } } == [
                "mini.json: $.destinations[0].aliases[1]: has no letters or digits"
            ])
        // Two names without letters are not also reported as the same name.
        let found = try problems { tree in
            var destinations = tree["destinations"] as! [[String: Any]]
            destinations[0]["name"] = "—"
            var copy = destinations[0]
            copy["id"] = "elsewhere"
            copy["name"] = "?"
            destinations.append(copy)
            tree["destinations"] = destinations
        }
        #expect(
            found == [
                "mini.json: $.destinations[0].name: has no letters",
                "mini.json: $.destinations[1].name: has no letters",
            ])
    }

    @Test("no control characters in what players and the TV see, not even a line break in a one-line text")
    func controlCharacters() throws {
        func expectOne(_ path: String, _ reason: String, _ mutate: (inout [String: Any]) -> Void) throws {
            #expect(try problems(mutate) == ["mini.json: $.\(path): \(reason)"])
        }
        try expectOne("title", "contains a control character (U+0009)") { $0["title"] = "Mini\t" }
        try expectOne("destinations[0].name", "contains a control character (U+0007)") { tree in
            destination(&tree) { $0["name"] = "Gothen\u{7}burg" }
        }
        try expectOne("destinations[0].aliases[0]", "contains a control character (U+000A)") { tree in
            destination(&tree) { $0["aliases"] = ["Göte\nborg"] }
        }
        try expectOne("destinations[0].clues[1].text", "contains a control character (U+000A)") { tree in
            clue(1, &tree) { $0["text"] = "Dutch engineers laid out\nits canals." }
        }
        try expectOne("destinations[0].followups[1].question", "contains a control character (U+009F)") { tree in
            followup(1, &tree) { $0["question"] = "Which king\u{9F} founded the city?" }
        }
        try expectOne("destinations[0].followups[0].options[1]", "contains a control character (U+007F)") { tree in
            followup(0, &tree) { $0["options"] = ["Liseberg", "Gröna Lund\u{7F}", "Tivoli"] }
        }
        try expectOne("destinations[0].followups[0].answer", "contains a control character (U+000D)") { tree in
            followup(0, &tree) { $0["answer"] = "Lise\r\nberg" }
        }
        try expectOne("destinations[0].followups[0].accepted[0]", "contains a control character (U+0000)") { tree in
            followup(0, &tree) { $0["accepted"] = ["Lisebergs\u{0}"] }
        }
        // Only control characters, or only whitespace.
        try expectOne("destinations[0].aliases[0]", "contains a control character (U+0001)") { tree in
            destination(&tree) { $0["aliases"] = ["\u{1}\u{1}"] }
        }
        try expectOne("destinations[0].name", "must not be empty") { tree in
            destination(&tree) { $0["name"] = " \t\n " }
        }
        // Longer texts that are read out may break lines, but hold no other control character.
        #expect(try problems { tree in destination(&tree) { $0["revealText"] = "We are in\nGothenburg!" } }.isEmpty)
        try expectOne("destinations[0].revealText", "contains a control character (U+0007)") { tree in
            destination(&tree) { $0["revealText"] = "We are in\u{7} Gothenburg!" }
        }
    }

    /// Mistakes met while writing the shipped packs.
    @Test("authoring mistakes: country aliases, reveal spoilers, answers built on the name, unsourced records")
    func authoringMistakes() throws {
        #expect(
            try problems { tree in destination(&tree) { $0["aliases"] = ["Göteborg", "Sverige"] } } == [
                "mini.json: $.destinations[0].aliases[1]: \"Sverige\" is the country: a player who names the country would score"
            ])
        // A city-state is its country.
        #expect(
            try problems { tree in
                destination(&tree) {
                    $0["name"] = "Monaco"
                    $0["aliases"] = ["Monte Carlo"]
                    $0["country"] = "Monaco"
                    $0["revealText"] = "We are in Monaco!"
                }
            }.isEmpty)
        #expect(
            try problems { tree in destination(&tree) { $0["revealText"] = "Gothenburg, home of Liseberg!" } } == [
                "mini.json: $.destinations[0].followups[0].answer: \"Liseberg\" is already said by the revealText"
            ])
        #expect(
            try problems { tree in followup(0, &tree) { $0["options"] = ["Liseberg", "Göteborgsvarvet", "Tivoli"] } }
                == [
                    "mini.json: $.destinations[0].followups[0].answer: \"Göteborgsvarvet\" contains the destination's name \"Göteborg\""
                ])
        #expect(
            try problems { tree in clue(2, &tree) { $0["text"] = "It has the oldest harbour crane in the north." } }
                == [
                    "mini.json: $.destinations[0].clues[2].text: says \"oldest\": a superlative needs a claim of this clue that states it (blueprint 10.3)"
                ])
        #expect(
            try problems { tree in
                clue(2, &tree) {
                    $0["text"] = "It has the oldest harbour crane in the north."
                    $0["claims"] = [
                        [
                            "id": "c9", "statement": "Its crane is the oldest in the north.",
                            "sources": ["https://a.org/x"],
                        ]
                    ]
                }
            }.isEmpty)
    }

    @Test(
        "advice, not a problem: answers that stand in one place among the options in over two thirds of the followups")
    func answerPlaces() throws {
        /// The advice on three destinations of two multiple-choice followups each, the answer at
        /// `places[n]` of the nth; the pack itself is valid either way.
        func advice(_ places: [Int]) throws -> [String] {
            var tree = try Fixture.miniTree()
            let template = (tree["destinations"] as! [[String: Any]])[0]
            tree["destinations"] = ["Gothenburg", "Uppsala", "Lund"].enumerated().map { d, name in
                var destination = template
                destination["id"] = name.lowercased()
                destination["name"] = name
                destination["aliases"] = [String]()
                destination["revealText"] = "We are in \(name)!"
                destination["followups"] = (0..<2).map { f in
                    var options = ["Uranus", "Neptune", "Saturn"]
                    options.swapAt(0, places[d * 2 + f])
                    return [
                        "question": "Which planet is meant, \(d)-\(f)?", "answer": "Uranus", "options": options,
                        "sources": ["https://en.wikipedia.org/wiki/Uranus"],
                    ]
                }
                return destination
            }
            let checked = PackValidator.validate(
                data: try JSONSerialization.data(withJSONObject: tree), file: "mini.json")
            #expect(checked.problems.isEmpty)
            return PackValidator.advice(try #require(checked.pack), file: "mini.json").map(\.description)
        }
        #expect(
            try advice([0, 0, 0, 0, 0, 1]) == [
                "mini.json: $.destinations: the answer is option 1 in 5 of the 6 followups with options: players learn where to look; put the answers in different places"
            ])
        #expect(try advice([2, 2, 2, 2, 2, 2]).count == 1)
        // Four of six is two thirds, not more; and answers spread over the places are what a pack should do.
        #expect(try advice([0, 0, 0, 0, 1, 2]).isEmpty)
        #expect(try advice([0, 1, 2, 2, 1, 0]).isEmpty)
    }

    @Test("duplicate destinations and pack ids")
    func duplicates() throws {
        let found = try problems { tree in
            var destinations = tree["destinations"] as! [[String: Any]]
            var copy = destinations[0]
            copy["name"] = "GOTHENBURG"
            destinations.append(copy)
            tree["destinations"] = destinations
        }
        #expect(
            found == [
                "mini.json: $.destinations[1].id: \"gothenburg\" is also the id of destinations[0]",
                "mini.json: $.destinations[1].name: \"GOTHENBURG\" is also the name of destinations[0]",
            ])
        let pack = try Fixture.miniPack()
        #expect(
            PackValidator.checkTogether([("a/pack.json", pack), ("b/pack.json", pack)]).map(\.description) == [
                "b/pack.json: $.packId: \"test-mini\" is also the id of a/pack.json"
            ])
    }

    @Test("difficulty and a claim's verification: their words, a checked claim says against what, the share")
    func difficultyAndVerification() throws {
        #expect(try problems { $0["difficulty"] = "easy" }.contains { $0.contains("followups[1].options") })
        #expect(
            try problems { $0["difficulty"] = "medium" } == [
                "mini.json: $.difficulty: must be \"easy\", \"standard\", \"hard\", found \"medium\""
            ])
        let claim = { (verification: [String: Any]) in
            try self.problems { tree in
                self.clue(0, &tree) { clue in
                    var claims = clue["claims"] as! [[String: Any]]
                    claims[0]["verification"] = verification
                    clue["claims"] = claims
                }
            }
        }
        #expect(try claim(["status": "unchecked"]).isEmpty)
        #expect(
            try claim(["status": "checked", "with": "https://en.wikipedia.org/wiki/Gothenburg: founded 1621"]).isEmpty)
        #expect(
            try claim(["status": "checked"]) == [
                "mini.json: $.destinations[0].clues[0].claims[0].verification.with: a checked claim says what it was checked against"
            ])
        #expect(
            try claim(["status": "sure"]) == [
                "mini.json: $.destinations[0].clues[0].claims[0].verification.status: must be \"checked\", \"unchecked\", found \"sure\""
            ])
        var pack = try Fixture.miniPack()
        #expect(PackValidator.checkedClaims(pack) == (0, 5))
        pack.destinations[0].clues[0].claims[0].verification = .init(status: .checked, with: "a page")
        pack.destinations[0].clues[1].claims[0].verification = .init(status: .unchecked)
        #expect(PackValidator.checkedClaims(pack) == (1, 5))
    }

    @Test("the 10-point clue names no continent; an easy pack's has no year before 1900, and its followups options")
    func continentsAndChildren() throws {
        #expect(
            try problems { tree in clue(0, &tree) { $0["text"] = "A port city that grew rich on European trade." } }
                == [
                    "mini.json: $.destinations[0].clues[0].text: the 10-point clue must not name the continent, but it says \"Europe\""
                ])
        #expect(
            try problems { tree in clue(0, &tree) { $0["text"] = "En hamnstad i norra Europa." } }.count == 1)
        // "American" usually means the United States (the country rule's business), and a later clue may
        // say the continent.
        #expect(
            try problems { tree in clue(0, &tree) { $0["text"] = "An American firm opened a plant here." } }.isEmpty)
        #expect(try problems { tree in clue(1, &tree) { $0["text"] = "A port city in northern Europe." } }.isEmpty)

        let easy = try problems {
            $0["difficulty"] = "easy"
            followup(1, &$0) { $0["options"] = ["Gustavus Adolphus", "Charles XII", "Christina"] }
        }
        #expect(
            easy == [
                "mini.json: $.destinations[0].clues[0].text: an easy pack's 10-point clue must not lean on a year before 1900, found 1621"
            ])
        #expect(
            try problems {
                $0["difficulty"] = "easy"
                followup(1, &$0) { $0["options"] = ["Gustavus Adolphus", "Charles XII", "Christina"] }
                clue(0, &$0) { $0["text"] = "A port city where a famous football club won in 1982." }
            }.isEmpty)
        #expect(
            PackValidator.yearsBefore1900(in: "In 1873, 1600-talet and the 1800s; not 1900, 2024 or 12345.") == [
                1873, 1600, 1800,
            ])
    }

    @Test("mentions: word sequences and short inflections, not substrings")
    func mentions() {
        let words = AnswerText.words("Göteborgs hamn ligger vid Göta älv, nära New York-gatan.")
        #expect(PackValidator.mentions(words, "Göteborg"))
        #expect(PackValidator.mentions(words, "new york"))
        #expect(!PackValidator.mentions(words, "York City"))
        #expect(!PackValidator.mentions(words, "Göt"))
        #expect(!PackValidator.mentions(AnswerText.words("Romerska rikets arv"), "Rom"))
        #expect(PackValidator.mentions(AnswerText.words("Parisarnas favorit"), "Paris") == false)
        #expect(PackValidator.mentions(AnswerText.words("Paris's river"), "Paris"))
    }
}
