import Core
import Foundation

/// What the bots may know: the box's packs, read from a folder (`bots --packs`), never anything the
/// box keeps secret. A clue the bots are shown is looked up by its text among the packs'
/// destinations, a followup by its question; without packs (or for a destination not in them) they
/// guess among well-known places.
struct BotAtlas: Sendable {
    private(set) var packs: [Pack]
    /// A clue's text (normalised) → its destination, as pack and destination index.
    private var clues: [String: (pack: Int, destination: Int)] = [:]
    /// A followup's question (normalised) → its followup, and the pack it is in.
    private var questions: [String: (pack: Int, followup: Followup)] = [:]

    /// Guesses when the packs give none.
    static let wellKnown = [
        "Paris", "London", "Rome", "Berlin", "Madrid", "Vienna", "Prague", "Lisbon", "Amsterdam", "Oslo",
        "Copenhagen", "Helsinki", "Stockholm", "Göteborg", "Visby", "Kiruna", "New York", "Tokyo", "Cairo", "Sydney",
    ]

    init(packs: [Pack] = []) {
        self.packs = packs
        for (packIndex, pack) in packs.enumerated() {
            for (index, destination) in pack.destinations.enumerated() {
                for clue in destination.clues { clues[Self.key(clue.text)] = (packIndex, index) }
                for followup in destination.followups { questions[Self.key(followup.question)] = (packIndex, followup) }
            }
        }
    }

    /// The packs in `folder`: a pack folder (holding pack.json) or a folder of pack folders, as the
    /// box's `--packs`. Packs that cannot be read are named in `skipped`.
    static func load(folder: String) throws(ConsoleError) -> (atlas: BotAtlas, skipped: [String]) {
        let files = FileManager.default
        let own = (folder as NSString).appendingPathComponent("pack.json")
        var paths: [String] = []
        if files.fileExists(atPath: own) {
            paths = [own]
        } else {
            guard let names = try? files.contentsOfDirectory(atPath: folder) else {
                throw .unexpected("cannot read the packs folder \(folder)")
            }
            let base = URL(fileURLWithPath: folder)
            paths = names.sorted().map { base.appendingPathComponent($0).appendingPathComponent("pack.json").path }
                .filter { files.fileExists(atPath: $0) }
        }
        var packs: [Pack] = []
        var skipped: [String] = []
        for path in paths {
            guard let data = files.contents(atPath: path), let pack = try? JSONDecoder().decode(Pack.self, from: data)
            else {
                skipped.append(path)
                continue
            }
            packs.append(pack)
        }
        return (BotAtlas(packs: packs), skipped)
    }

    var destinationCount: Int { packs.reduce(0) { $0 + $1.destinations.count } }

    /// The destination a clue belongs to, when one of the packs has it.
    func destination(clue text: String) -> Destination? {
        guard let found = clues[Self.key(text)] else { return nil }
        return packs[found.pack].destinations[found.destination]
    }

    /// The followup a question asks, when one of the packs has it.
    func followup(question text: String) -> Followup? { questions[Self.key(text)]?.followup }

    /// Wrong answers for a destination, nearest first: the same country's other destinations in its
    /// pack, then the rest of that pack (or of the session's pack `packId`), then the other packs
    /// in the same language; the well-known places when the packs give none.
    func otherNames(than destination: Destination?, packId: String?, language: Language?) -> [String] {
        let home =
            destination.flatMap { target in packs.firstIndex { $0.destinations.contains(target) } }
            ?? packs.firstIndex { $0.packId == packId }
        var names: [String] = []
        if let home {
            let others = packs[home].destinations.filter { $0 != destination }
            names += others.filter { $0.country == destination?.country }.map(\.name)
            names += others.filter { $0.country != destination?.country }.map(\.name)
        }
        for (index, pack) in packs.enumerated() where index != home && (language == nil || pack.language == language) {
            names += pack.destinations.filter { $0 != destination }.map(\.name)
        }
        return names.isEmpty ? Self.wellKnown.filter { $0 != destination?.name } : names
    }

    /// Other followups' answers in the same pack as `question` (or every pack's): wrong answers of
    /// the same kind, more or less.
    func otherAnswers(than question: String) -> [String] {
        let found = questions[Self.key(question)]
        let packs = found.map { [self.packs[$0.pack]] } ?? self.packs
        return packs.flatMap { $0.destinations.flatMap(\.followups) }.filter { $0.question != found?.followup.question }
            .map(\.answer)
    }

    /// A text as looked up: its words, lowercased and without accents or punctuation.
    static func key(_ text: String) -> String { AnswerText.words(text).joined(separator: " ") }
}
