import Foundation

/// The one normalisation every answer and every accepted answer goes through before they are compared,
/// and that the pack validator uses to find giveaways.
public enum AnswerText {
    /// Words that say what kind of place something is rather than which place: "staden Paris" is "Paris".
    public static let stopwords: Set<String> = [
        // Swedish
        "staden", "stad", "kommunen", "kommun", "byn", "ön", "on", "landet", "orten",
        // English
        "the", "city", "town", "village", "of",
    ]

    /// Letters that carry no diacritic to strip but still differ from what a player types on a plain keyboard.
    private static let foldedLetters: [Character: String] = [
        "ß": "ss", "æ": "ae", "ø": "o", "œ": "oe", "ł": "l", "đ": "d", "ð": "d", "þ": "th", "ı": "i",
    ]

    /// Lowercased, diacritics folded (å ä ö é ü → a a o e u), apostrophes dropped, every other
    /// punctuation mark or symbol a word break, whitespace collapsed. Stopwords are kept.
    public static func words(_ text: String) -> [String] {
        var folded = ""
        for character in text.lowercased() {
            if let replacement = foldedLetters[character] {
                folded += replacement
            } else {
                folded.append(character)
            }
        }
        var cleaned = String.UnicodeScalarView()
        for scalar in folded.decomposedStringWithCanonicalMapping.unicodeScalars {
            switch scalar.properties.generalCategory {
            case .nonspacingMark, .spacingMark, .enclosingMark:
                continue
            case .lowercaseLetter, .uppercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
                .decimalNumber, .letterNumber, .otherNumber:
                cleaned.append(scalar)
            default:
                if scalar == "'" || scalar == "\u{2019}" || scalar == "`" || scalar == "\u{00B4}" {
                    continue
                }
                cleaned.append(" ")
            }
        }
        return String(cleaned).split(separator: " ").map(String.init)
    }

    /// `words` without stopwords, joined without spaces so "New York" and "newyork" compare equal.
    /// When only stopwords are left ("The City"), they are kept.
    public static func normalized(_ text: String) -> String {
        let all = words(text)
        let meaningful = all.filter { !stopwords.contains($0) }
        return (meaningful.isEmpty ? all : meaningful).joined()
    }
}
