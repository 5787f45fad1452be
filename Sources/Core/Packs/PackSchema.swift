import Foundation

/// The shape a pack.json must have: types, required and unknown keys, lengths and ranges.
/// Checked on the raw JSON first so every mistake is reported with its path, not just the first.
indirect enum Shape: Sendable {
    /// A one-line text holds no control character at all; a `multiline` one may break lines with "\n".
    case string(length: ClosedRange<Int>, multiline: Bool = false)
    case url
    /// One of a few words, spelled exactly.
    case choice([String])
    case integer(ClosedRange<Int>)
    case number(ClosedRange<Double>)
    case array(of: Shape, count: ClosedRange<Int>)
    case object([Field])
}

struct Field: Sendable {
    let name: String
    let shape: Shape
    let required: Bool

    static func required(_ name: String, _ shape: Shape) -> Field { Field(name: name, shape: shape, required: true) }
    static func optional(_ name: String, _ shape: Shape) -> Field { Field(name: name, shape: shape, required: false) }
}

enum PackSchema {
    static let anyCount = 0...Int.max
    static let text = Shape.string(length: 1...2000)

    static let verification = Shape.object([
        .required("status", .choice(ClaimVerification.Status.allCases.map(\.rawValue))),
        .optional("with", .string(length: 1...300, multiline: true)),
    ])

    static let claim = Shape.object([
        .required("id", .string(length: 1...40)),
        .required("statement", .string(length: 1...500, multiline: true)),
        .required("sources", .array(of: .url, count: 1...10)),
        .optional("verification", verification),
    ])

    static let clue = Shape.object([
        .required("points", .integer(2...10)),
        .required("text", .string(length: 10...300)),
        .required("claims", .array(of: claim, count: 1...10)),
    ])

    static let followup = Shape.object([
        .required("question", .string(length: 10...200)),
        .required("answer", .string(length: 1...100)),
        .optional("accepted", .array(of: .string(length: 1...100), count: anyCount)),
        .optional("options", .array(of: .string(length: 1...100), count: 2...6)),
        .required("sources", .array(of: .url, count: 1...10)),
    ])

    static let destination = Shape.object([
        .required("id", .string(length: 1...60)),
        .required("name", .string(length: 1...60)),
        .required("aliases", .array(of: .string(length: 1...60), count: anyCount)),
        .required("country", .string(length: 1...60)),
        .optional("countryAliases", .array(of: .string(length: 1...60), count: anyCount)),
        .required("region", .string(length: 1...100)),
        .required("lat", .number(-90...90)),
        .required("lon", .number(-180...180)),
        .required("revealText", .string(length: 1...500, multiline: true)),
        .required("clues", .array(of: clue, count: 5...5)),
        .required("followups", .array(of: followup, count: 2...3)),
        .optional("banter", .array(of: .string(length: 1...200, multiline: true), count: anyCount)),
    ])

    static let pack = Shape.object([
        .required("format", .integer(1...1)),
        .required("packId", .string(length: 3...40)),
        .required("title", .string(length: 1...60)),
        .optional("description", .string(length: 1...300, multiline: true)),
        .required("language", .string(length: 2...2)),
        .required("version", .string(length: 1...20)),
        .optional("difficulty", .choice(PackDifficulty.allCases.map(\.rawValue))),
        .required("licence", .string(length: 1...60)),
        .optional("attribution", .string(length: 1...300, multiline: true)),
        .required("destinations", .array(of: destination, count: 1...500)),
    ])

    /// Every place where `value` does not have `shape`.
    static func check(_ value: JSONValue, against shape: Shape, at path: JSONPath) -> [PackProblem] {
        switch (shape, value) {
        case (.string(let length, let multiline), .string(let string)):
            let trimmed = string.trimmingCharacters(in: .whitespacesAndNewlines)
            if trimmed.isEmpty {
                return [PackProblem(path: path, reason: "must not be empty")]
            }
            if !length.contains(string.count) {
                return [
                    PackProblem(path: path, reason: "must be \(describe(length)) characters long, is \(string.count)")
                ]
            }
            // U+0000–U+001F and U+007F–U+009F: invisible on the TV, or breaking a line that is one line.
            if let control = string.unicodeScalars.first(where: {
                $0.properties.generalCategory == .control && !(multiline && $0 == "\n")
            }) {
                return [
                    PackProblem(
                        path: path, reason: "contains a control character (\(String(format: "U+%04X", control.value)))")
                ]
            }
            return []
        case (.url, .string(let string)):
            let lower = string.lowercased()
            guard lower.hasPrefix("https://") || lower.hasPrefix("http://"), string.count > 10, !string.contains(" ")
            else {
                return [PackProblem(path: path, reason: "must be an http(s) URL, found \"\(string)\"")]
            }
            return []
        case (.choice(let words), .string(let string)):
            return words.contains(string)
                ? []
                : [
                    PackProblem(
                        path: path,
                        reason: "must be \(words.map { "\"\($0)\"" }.joined(separator: ", ")), found \"\(string)\"")
                ]
        case (.integer(let range), .number(let number)):
            guard number.rounded() == number, let integer = Int(exactly: number) else {
                return [PackProblem(path: path, reason: "must be a whole number, found \(number)")]
            }
            return range.contains(integer)
                ? [] : [PackProblem(path: path, reason: "must be \(describe(range)), found \(integer)")]
        case (.number(let range), .number(let number)):
            return range.contains(number)
                ? []
                : [
                    PackProblem(
                        path: path,
                        reason: "must be between \(range.lowerBound) and \(range.upperBound), found \(number)")
                ]
        case (.array(let element, let count), .array(let items)):
            var problems: [PackProblem] = []
            if !count.contains(items.count) {
                problems.append(
                    PackProblem(path: path, reason: "must have \(describe(count)) entries, has \(items.count)"))
            }
            for (index, item) in items.enumerated() {
                problems += check(item, against: element, at: path.index(index))
            }
            return problems
        case (.object(let fields), .object(let members)):
            var problems: [PackProblem] = []
            let known = Set(fields.map(\.name))
            for key in members.keys.sorted() where !known.contains(key) {
                let hint =
                    fields.map(\.name).first { $0.lowercased() == key.lowercased() }.map {
                        " (did you mean \"\($0)\"?)"
                    } ?? ""
                problems.append(PackProblem(path: path.key(key), reason: "unknown key\(hint)"))
            }
            for field in fields {
                guard let member = members[field.name], member != .null else {
                    if field.required {
                        problems.append(PackProblem(path: path.key(field.name), reason: "is required"))
                    }
                    continue
                }
                problems += check(member, against: field.shape, at: path.key(field.name))
            }
            return problems
        case (.string, _), (.url, _), (.choice, _):
            return [PackProblem(path: path, reason: "must be a string, found \(value.kindName)")]
        case (.integer, _), (.number, _):
            return [PackProblem(path: path, reason: "must be a number, found \(value.kindName)")]
        case (.array, _):
            return [PackProblem(path: path, reason: "must be an array, found \(value.kindName)")]
        case (.object, _):
            return [PackProblem(path: path, reason: "must be an object, found \(value.kindName)")]
        }
    }

    private static func describe(_ range: ClosedRange<Int>) -> String {
        if range.lowerBound == range.upperBound { return "exactly \(range.lowerBound)" }
        if range.upperBound == Int.max { return "at least \(range.lowerBound)" }
        return "\(range.lowerBound)–\(range.upperBound)"
    }
}
