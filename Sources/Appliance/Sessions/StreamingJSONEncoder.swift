import Core
import Foundation

/// JSON for the wire, written straight into bytes as `Encodable` values describe themselves.
///
/// Foundation's `JSONEncoder` first builds a tree of every value and then writes the tree; on a
/// busy box that was a fifth of the CPU, most of it for snapshots. This writes as it goes. The
/// output is what `JSONEncoder` with `.withoutEscapingSlashes` writes, compact, with the keys in
/// the order they are encoded (`StreamingJSONEncoderTests` compares the two on every message of
/// scripted games).
enum StreamingJSONEncoder {
    static func encode<Value: Encodable>(_ value: Value) throws -> [UInt8] {
        try encode(value, after: "", locating: nil).bytes
    }

    /// `prefix` followed by `value`'s JSON, and where in those bytes the value of `key`, a member of
    /// the object `value` encodes as, was written (nil if it has no such member). This is how the
    /// box splices a player's own part into a text shared by every player without searching it.
    static func encode<Value: Encodable>(
        _ value: Value, after prefix: String, locating key: String?
    ) throws -> (bytes: [UInt8], located: Range<Int>?) {
        let writer = JSONByteWriter(prefix: prefix, locating: key)
        try writer.value(value)
        return (writer.bytes, writer.located)
    }
}

/// JSON text that is written as it is: a part the box encoded itself before (a patch operation),
/// put into a larger message without being decoded and encoded again. Only `StreamingJSONEncoder`
/// writes it; the text must be valid JSON from the box, never a client's.
struct JSONFragment: Encodable {
    let text: String

    func encode(to encoder: any Encoder) throws {
        throw EncodingError.invalidValue(
            text,
            .init(
                codingPath: encoder.codingPath,
                debugDescription: "a JSON fragment is written only by StreamingJSONEncoder"))
    }
}

/// The writer the containers share. The state lives behind a pointer: a class's stored properties
/// are checked for overlapping access on every use, and on a busy box those checks, a few per
/// byte of a string, were a tenth of the CPU. Every write goes through one call on the state.
private final class JSONByteWriter {
    private let output = UnsafeMutablePointer<JSONOutput>.allocate(capacity: 1)

    init(prefix: String, locating key: String?) {
        output.initialize(to: JSONOutput(prefix: prefix, locating: key))
    }

    deinit {
        output.deinitialize(count: 1)
        output.deallocate()
    }

    var bytes: [UInt8] { output.pointee.bytes }

    var located: Range<Int>? { output.pointee.located }

    /// Writes one value. Containers its `encode(to:)` opened are closed when it returns.
    func value<Value: Encodable>(_ value: Value) throws {
        // Compared by type first: a cast of every value to each of these would cost more than the
        // writing (the concrete `encode` overloads below catch most of them before they get here).
        if Value.self == String.self {
            string(unsafeBitCast(value, to: String.self))
        } else if Value.self == Int.self {
            integer(unsafeBitCast(value, to: Int.self))
        } else if Value.self == Bool.self {
            literal(unsafeBitCast(value, to: Bool.self) ? "true" : "false")
        } else if Value.self == Int64.self {
            integer(unsafeBitCast(value, to: Int64.self))
        } else if Value.self == Double.self {
            try number(unsafeBitCast(value, to: Double.self))
        } else if Value.self == Float.self {
            try number(Double(unsafeBitCast(value, to: Float.self)))
        } else if Value.self == JSONFragment.self {
            literal(unsafeBitCast(value, to: JSONFragment.self).text)
        } else if let integer = Self.otherInteger(value) {
            literal(integer)
        } else {
            let depth = output.pointee.open.count
            let start = output.pointee.bytes.count
            try value.encode(to: StreamingEncoder(writer: self, level: depth))
            output.pointee.close(to: depth)
            // A value that encoded nothing at all is an empty object, as JSONEncoder writes it.
            if output.pointee.bytes.count == start { literal("{}") }
        }
    }

    func integer(_ value: some BinaryInteger) { literal(String(value)) }

    /// The integer types the wire does not use, which would otherwise come back here through their
    /// own `encode(to:)` for ever.
    private static func otherInteger<Value>(_ value: Value) -> String? {
        let type = ObjectIdentifier(Value.self)
        return otherIntegerTypes.contains(type) ? "\(value)" : nil
    }

    private static let otherIntegerTypes: [ObjectIdentifier] = [
        Int8.self, Int16.self, Int32.self, UInt.self, UInt8.self, UInt16.self, UInt32.self, UInt64.self,
    ].map { ObjectIdentifier($0 as Any.Type) }

    func openContainer(isObject: Bool, level: Int) -> Int {
        output.pointee.openContainer(isObject: isObject, level: level)
    }

    func member(of index: Int, key: String?) { output.pointee.member(of: index, key: key) }

    func literal(_ text: String) { output.pointee.bytes.append(contentsOf: text.utf8) }

    func number(_ value: Double) throws {
        guard value.isFinite else {
            throw EncodingError.invalidValue(
                value, .init(codingPath: [], debugDescription: "\(value) is not a JSON number"))
        }
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        literal(text)
    }

    func string(_ text: String) { output.pointee.string(text) }
}

/// The output and the containers that are open in it, innermost last.
private struct JSONOutput {
    var bytes: [UInt8] = []
    /// Open containers: whether each is an object, and whether it has a member yet.
    var open: [(isObject: Bool, isEmpty: Bool)] = []
    /// The key of an outermost member whose value's place is recorded, where that value started
    /// while it is being written, and its place once it is.
    let locating: String?
    var locatedStart: Int?
    var located: Range<Int>?

    init(prefix: String, locating: String?) {
        bytes.reserveCapacity(512)
        bytes.append(contentsOf: prefix.utf8)
        self.locating = locating
    }

    /// Opens a container for the encoder at `level`, or finds the one it already opened there
    /// (a value may ask for its keyed container more than once).
    mutating func openContainer(isObject: Bool, level: Int) -> Int {
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
    mutating func member(of index: Int, key: String?) {
        close(to: index + 1)
        if index == 0, let start = locatedStart {
            located = start..<bytes.count
            locatedStart = nil
        }
        if open[index].isEmpty {
            open[index].isEmpty = false
        } else {
            bytes.append(UInt8(ascii: ","))
        }
        if let key {
            string(key)
            bytes.append(UInt8(ascii: ":"))
            if index == 0, let locating, located == nil, key == locating { locatedStart = bytes.count }
        }
    }

    mutating func close(to depth: Int) {
        while open.count > depth {
            if open.count == 1, let start = locatedStart {
                located = start..<bytes.count
                locatedStart = nil
            }
            bytes.append(open.removeLast().isObject ? UInt8(ascii: "}") : UInt8(ascii: "]"))
        }
    }

    /// A quoted string: runs that need no escape are copied whole.
    mutating func string(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { utf8 in
            var run = 0
            for index in utf8.indices {
                let byte = utf8[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[run..<index]))
                escape(byte)
                run = index + 1
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[run...]))
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private mutating func escape(_ byte: UInt8) {
        bytes.append(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(byte)
        case 0x0A: bytes.append(UInt8(ascii: "n"))
        case 0x0D: bytes.append(UInt8(ascii: "r"))
        case 0x09: bytes.append(UInt8(ascii: "t"))
        case 0x08: bytes.append(UInt8(ascii: "b"))
        case 0x0C: bytes.append(UInt8(ascii: "f"))
        default:
            let hex = Array("0123456789abcdef".utf8)
            bytes.append(contentsOf: Array("u00".utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
        }
    }
}

private struct StreamingEncoder: Encoder {
    let writer: JSONByteWriter
    /// How many containers were open when this value began: its own container goes at this index.
    let level: Int
    /// Not kept: it would cost an allocation per value, and only an error message would use it.
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(
            KeyedContainer(
                writer: writer, index: writer.openContainer(isObject: true, level: level)))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        UnkeyedContainer(
            writer: writer, index: writer.openContainer(isObject: false, level: level))
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleValueContainer(writer: writer)
    }
}

private struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let writer: JSONByteWriter
    let index: Int
    /// Not kept: it would cost an allocation per value, and only an error message would use it.
    var codingPath: [any CodingKey] { [] }

    mutating func encodeNil(forKey key: Key) throws {
        writer.member(of: index, key: key.stringValue)
        writer.literal("null")
    }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        writer.member(of: index, key: key.stringValue)
        try writer.value(value)
    }

    mutating func encode(_ value: String, forKey key: Key) throws {
        writer.member(of: index, key: key.stringValue)
        writer.string(value)
    }

    mutating func encode(_ value: Bool, forKey key: Key) throws {
        writer.member(of: index, key: key.stringValue)
        writer.literal(value ? "true" : "false")
    }

    mutating func encode(_ value: Int, forKey key: Key) throws {
        writer.member(of: index, key: key.stringValue)
        writer.integer(value)
    }

    mutating func encode(_ value: Int64, forKey key: Key) throws {
        writer.member(of: index, key: key.stringValue)
        writer.integer(value)
    }

    mutating func encode(_ value: Double, forKey key: Key) throws {
        writer.member(of: index, key: key.stringValue)
        try writer.number(value)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        writer.member(of: index, key: key.stringValue)
        return StreamingEncoder(writer: writer, level: index + 1).container(
            keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        writer.member(of: index, key: key.stringValue)
        return StreamingEncoder(writer: writer, level: index + 1).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        writer.member(of: index, key: "super")
        return StreamingEncoder(writer: writer, level: index + 1)
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        writer.member(of: index, key: key.stringValue)
        return StreamingEncoder(writer: writer, level: index + 1)
    }
}

private struct UnkeyedContainer: UnkeyedEncodingContainer {
    let writer: JSONByteWriter
    let index: Int
    /// Not kept: it would cost an allocation per value, and only an error message would use it.
    var codingPath: [any CodingKey] { [] }
    private(set) var count = 0

    init(writer: JSONByteWriter, index: Int) {
        self.writer = writer
        self.index = index
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
        try writer.value(value)
    }

    mutating func encode(_ value: String) throws {
        next()
        writer.string(value)
    }

    mutating func encode(_ value: Int) throws {
        next()
        writer.integer(value)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type
    ) -> KeyedEncodingContainer<
        NestedKey
    > {
        next()
        return StreamingEncoder(writer: writer, level: index + 1).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        next()
        return StreamingEncoder(writer: writer, level: index + 1).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        next()
        return StreamingEncoder(writer: writer, level: index + 1)
    }
}

/// A value that is one string, number, boolean or null (an enum's raw value, an optional).
private struct SingleValueContainer: SingleValueEncodingContainer {
    let writer: JSONByteWriter
    /// Not kept: it would cost an allocation per value, and only an error message would use it.
    var codingPath: [any CodingKey] { [] }

    mutating func encodeNil() throws { writer.literal("null") }
    mutating func encode<T: Encodable>(_ value: T) throws { try writer.value(value) }
    mutating func encode(_ value: String) throws { writer.string(value) }
    mutating func encode(_ value: Bool) throws { writer.literal(value ? "true" : "false") }
    mutating func encode(_ value: Int) throws { writer.integer(value) }
    mutating func encode(_ value: Int64) throws { writer.integer(value) }
    mutating func encode(_ value: Double) throws { try writer.number(value) }
}
