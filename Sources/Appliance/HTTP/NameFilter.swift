import Core
import Foundation

/// The names the box refuses (CONTRACT 4.4): insults and slurs in Swedish and English, from the
/// lists in `Names/` (their source and licence are in each file). A name is refused when one of its
/// words is on a list, compared without case or diacritics and with digits read as the letters they
/// stand for (`h0ra`, `sh1t`); a word only contains a listed word ("Scunthorpe", "Assar") is fine.
/// `tripto serve --allow-any-name` turns it off.
struct NameFilter: Sendable {
    private let words: Set<String>

    init(words: some Sequence<String>) {
        self.words = Set(words.flatMap { Self.words($0) })
    }

    /// The lists bundled with the box.
    static func bundled() throws -> NameFilter {
        guard let folder = Bundle.module.url(forResource: "Names", withExtension: nil) else {
            throw Missing()
        }
        var words: [String] = []
        for language in ["en", "sv"] {
            let data = try Data(contentsOf: folder.appendingPathComponent("\(language).txt"))
            words += String(decoding: data, as: UTF8.self).split(separator: "\n")
                .filter { !$0.isEmpty && !$0.hasPrefix("#") }.map(String.init)
        }
        return NameFilter(words: words)
    }

    struct Missing: Error, CustomStringConvertible {
        var description: String { "the name lists are not in the resource bundle" }
    }

    /// Whether `name` has a word on the lists.
    func refuses(_ name: String) -> Bool {
        // A 1 may stand for an i or an l: both readings are tried.
        ["i", "l"].contains { one in Self.words(name, one: one).contains(where: words.contains) }
    }

    /// The words of `text` as answers are compared (`AnswerText.words`: lowercase, without
    /// diacritics, split at anything but letters and digits), with the digits and signs that stand
    /// for letters read as them.
    static func words(_ text: String, one: Character = "i") -> [String] {
        let stand: [Character: Character] = [
            "0": "o", "1": one, "3": "e", "4": "a", "5": "s", "7": "t", "8": "b", "@": "a", "$": "s",
        ]
        return AnswerText.words(String(text.lowercased().map { stand[$0] ?? $0 }))
    }
}
