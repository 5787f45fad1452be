/// Any JSON document, decoded without a schema: so the pack validator can report every type error
/// with its path, and for the values a STATE_PATCH operation carries.
public enum JSONValue: Codable, Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// How a problem message names this value's type.
    var kindName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

/// A location inside a JSON document, printed as `$.destinations[2].clues[0].text`.
public struct JSONPath: Sendable, Hashable, CustomStringConvertible {
    private var parts: [String] = []

    public init() {}

    public func key(_ name: String) -> JSONPath {
        var copy = self
        copy.parts.append(".\(name)")
        return copy
    }

    public func index(_ index: Int) -> JSONPath {
        var copy = self
        copy.parts.append("[\(index)]")
        return copy
    }

    public var description: String { "$" + parts.joined() }
}
