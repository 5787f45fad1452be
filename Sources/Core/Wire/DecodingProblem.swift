/// A decoding error as one readable phrase with the path of the bad value (`payload.index must be Int`),
/// for the answers the box gives to bad REST bodies and socket messages alike.
public enum DecodingProblem {
    /// - Parameter whole: what to call the document itself when the problem has no path.
    public static func describe(_ error: any Error, whole: String) -> String {
        func at(_ keys: [any CodingKey]) -> String { keys.isEmpty ? whole : path(keys) }
        switch error {
        case DecodingError.keyNotFound(let key, let context):
            return "missing \(path(context.codingPath + [key]))"
        case DecodingError.typeMismatch(let type, let context):
            return "\(at(context.codingPath)) must be \(name(of: type))"
        case DecodingError.valueNotFound(let type, let context):
            return "\(at(context.codingPath)) must be \(name(of: type)), not null"
        case DecodingError.dataCorrupted(let context):
            return "\(at(context.codingPath)) is invalid"
        default:
            return "\(whole) is invalid"
        }
    }

    /// Foundation names a JSON object or array by its Swift type (`Dictionary<String, Any>`).
    private static func name(of type: Any.Type) -> String {
        let name = "\(type)"
        if name.hasPrefix("Dictionary<") { return "an object" }
        if name.hasPrefix("Array<") { return "an array" }
        return name
    }

    /// `settings.destinations[2].name`
    public static func path(_ keys: [any CodingKey]) -> String {
        keys.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
    }
}
