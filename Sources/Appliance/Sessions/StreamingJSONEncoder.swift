/// JSON for the wire, written straight into bytes as `Encodable` values describe themselves.
///
/// Foundation's `JSONEncoder` first builds a tree of every value and then writes the tree; on a
/// busy box that was a fifth of the CPU, most of it for snapshots. This writes as it goes. The
/// output is what `JSONEncoder` with `.withoutEscapingSlashes` writes, compact, with the keys in
/// the order they are encoded (`StreamingJSONEncoderTests` compares the two on every message of
/// scripted games).
enum StreamingJSONEncoder {
    static func encode<Value: Encodable>(_ value: Value) throws -> [UInt8] {
        let writer = JSONByteWriter()
        try writer.value(value, path: [])
        return writer.bytes
    }
}

/// The output and the containers that are open in it, innermost last.
private final class JSONByteWriter {
    var bytes: [UInt8] = []
    /// Open containers: whether each is an object, and whether it has a member yet.
    private var open: [(isObject: Bool, isEmpty: Bool)] = []

    init() { bytes.reserveCapacity(512) }

    /// Writes one value. Containers its `encode(to:)` opened are closed when it returns.
    func value<Value: Encodable>(_ value: Value, path: [any CodingKey]) throws {
        switch value {
        case let string as String: self.string(string)
        case let bool as Bool: literal(bool ? "true" : "false")
        case let int as Int: literal(String(int))
        case let int as Int64: literal(String(int))
        case let int as Int32: literal(String(int))
        case let int as UInt: literal(String(int))
        case let int as UInt64: literal(String(int))
        case let double as Double: try number(double, path: path)
        case let float as Float: try number(Double(float), path: path)
        default:
            let depth = open.count
            let start = bytes.count
            try value.encode(to: StreamingEncoder(writer: self, level: depth, codingPath: path))
            close(to: depth)
            // A value that encoded nothing at all is an empty object, as JSONEncoder writes it.
            if bytes.count == start { literal("{}") }
        }
    }

    /// Opens a container for the encoder at `level`, or finds the one it already opened there
    /// (a value may ask for its keyed container more than once).
    func openContainer(isObject: Bool, level: Int) -> Int {
        if open.count > level, open[level].isObject == isObject {
            close(to: level + 1)
            return level
        }
        close(to: level)
        bytes.append(isObject ? UInt8(ascii: "{") : UInt8(ascii: "["))
        open.append((isObject, true))
        return open.count - 1
    }

    /// Before a member of the container at `index`: closes what was opened inside it since, and
    /// writes the comma and, in an object, the key.
    func member(of index: Int, key: String?) {
        close(to: index + 1)
        if open[index].isEmpty {
            open[index].isEmpty = false
        } else {
            bytes.append(UInt8(ascii: ","))
        }
        if let key {
            string(key)
            bytes.append(UInt8(ascii: ":"))
        }
    }

    func close(to depth: Int) {
        while open.count > depth {
            bytes.append(open.removeLast().isObject ? UInt8(ascii: "}") : UInt8(ascii: "]"))
        }
    }

    func literal(_ text: String) { bytes.append(contentsOf: text.utf8) }

    func number(_ value: Double, path: [any CodingKey]) throws {
        guard value.isFinite else {
            throw EncodingError.invalidValue(
                value, .init(codingPath: path, debugDescription: "\(value) is not a JSON number"))
        }
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        literal(text)
    }

    func string(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x0A: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0x08: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
            case 0x0C: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: Array(#"\u00"#.utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}

private struct StreamingEncoder: Encoder {
    let writer: JSONByteWriter
    /// How many containers were open when this value began: its own container goes at this index.
    let level: Int
    var codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(
            KeyedContainer(
                writer: writer, index: writer.openContainer(isObject: true, level: level), codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        UnkeyedContainer(
            writer: writer, index: writer.openContainer(isObject: false, level: level), codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleValueContainer(writer: writer, codingPath: codingPath)
    }
}

private struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let writer: JSONByteWriter
    let index: Int
    var codingPath: [any CodingKey]

    mutating func encodeNil(forKey key: Key) throws {
        writer.member(of: index, key: key.stringValue)
        writer.literal("null")
    }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        writer.member(of: index, key: key.stringValue)
        try writer.value(value, path: codingPath + [key])
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        writer.member(of: index, key: key.stringValue)
        return StreamingEncoder(writer: writer, level: index + 1, codingPath: codingPath + [key]).container(
            keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        writer.member(of: index, key: key.stringValue)
        return StreamingEncoder(writer: writer, level: index + 1, codingPath: codingPath + [key]).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        writer.member(of: index, key: "super")
        return StreamingEncoder(writer: writer, level: index + 1, codingPath: codingPath)
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        writer.member(of: index, key: key.stringValue)
        return StreamingEncoder(writer: writer, level: index + 1, codingPath: codingPath + [key])
    }
}

private struct UnkeyedContainer: UnkeyedEncodingContainer {
    let writer: JSONByteWriter
    let index: Int
    var codingPath: [any CodingKey]
    private(set) var count = 0

    init(writer: JSONByteWriter, index: Int, codingPath: [any CodingKey]) {
        self.writer = writer
        self.index = index
        self.codingPath = codingPath
    }

    private mutating func next() {
        writer.member(of: index, key: nil)
        count += 1
    }

    mutating func encodeNil() throws {
        next()
        writer.literal("null")
    }

    mutating func encode<T: Encodable>(_ value: T) throws {
        next()
        try writer.value(value, path: codingPath)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type
    ) -> KeyedEncodingContainer<
        NestedKey
    > {
        next()
        return StreamingEncoder(writer: writer, level: index + 1, codingPath: codingPath).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        next()
        return StreamingEncoder(writer: writer, level: index + 1, codingPath: codingPath).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        next()
        return StreamingEncoder(writer: writer, level: index + 1, codingPath: codingPath)
    }
}

/// A value that is one string, number, boolean or null (an enum's raw value, an optional).
private struct SingleValueContainer: SingleValueEncodingContainer {
    let writer: JSONByteWriter
    var codingPath: [any CodingKey]

    mutating func encodeNil() throws { writer.literal("null") }
    mutating func encode<T: Encodable>(_ value: T) throws { try writer.value(value, path: codingPath) }
}
