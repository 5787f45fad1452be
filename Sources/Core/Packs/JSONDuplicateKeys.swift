import Foundation

/// A key that one JSON object holds more than once.
struct JSONDuplicateKey: Sendable, Equatable {
    /// The object that holds the key.
    var path: JSONPath
    var key: String
    /// How many times the object holds it: 2 or more.
    var count: Int
}

/// Finds keys written more than once in a JSON object. JSONDecoder keeps one of the values and drops the
/// others without a word, so this reads the raw text: one pass, keeping only the keys of the objects
/// still open. Keys are compared as the decoder compares them, after unescaping (`"a"` is `"\u0061"`) and
/// as Swift strings (canonically equivalent spellings are the same key). Meant for text JSONDecoder
/// accepted; on anything else it returns what it found without failing.
enum JSONDuplicateKeys {
    static func find(in data: Data) -> [JSONDuplicateKey] {
        let bytes = utf8(data)
        var found: [JSONDuplicateKey] = []
        var open: [Container] = []
        var index = 0
        while index < bytes.count {
            switch bytes[index] {
            case .openBrace, .openBracket:
                let step = open.last?.stepToChild
                open.append(Container(isObject: bytes[index] == .openBrace, step: step))
                index += 1
            case .closeBrace, .closeBracket:
                _ = open.popLast()
                index += 1
            case .comma:
                if let last = open.indices.last {
                    if open[last].isObject {
                        open[last].expectsKey = true
                    } else {
                        open[last].count += 1
                    }
                }
                index += 1
            case .quote:
                guard let last = open.indices.last, open[last].isObject, open[last].expectsKey else {
                    index = endOfString(in: bytes, from: index)
                    continue
                }
                let (key, end) = string(in: bytes, from: index)
                index = end
                open[last].expectsKey = false
                open[last].key = key
                switch open[last].seen[key] {
                case nil:
                    open[last].seen[key] = Container.once
                case .some(Container.once):
                    open[last].seen[key] = found.count
                    found.append(JSONDuplicateKey(path: path(of: &open), key: key, count: 2))
                case let reported?:
                    found[reported].count += 1
                }
            default:
                index += 1
            }
        }
        return found
    }

    /// An object or array not yet closed.
    private struct Container {
        static let once = -1

        let isObject: Bool
        /// How the enclosing container reaches this one; nil at the top.
        let step: Step?
        /// Objects: whether the next string is a key, the last key read, and for each key read, `once` or
        /// the index of its report.
        var expectsKey = true
        var key = ""
        var seen: [String: Int] = [:]
        /// Arrays: the index of the current element.
        var count = 0
        /// Made when first needed.
        var path: JSONPath?

        init(isObject: Bool, step: Step?) {
            self.isObject = isObject
            self.step = step
        }

        var stepToChild: Step { isObject ? .key(key) : .index(count) }
    }

    private enum Step {
        case key(String)
        case index(Int)
    }

    /// The path of the innermost open container. Each container's path is made once, from its parent's.
    private static func path(of open: inout [Container]) -> JSONPath {
        var path = JSONPath()
        for level in open.indices {
            if let known = open[level].path {
                path = known
                continue
            }
            switch open[level].step {
            case .key(let name)?: path = path.key(name)
            case .index(let index)?: path = path.index(index)
            case nil: break
            }
            open[level].path = path
        }
        return path
    }

    /// The string whose opening quote is at `start`, unescaped, and the index after its closing quote.
    private static func string(in bytes: [UInt8], from start: Int) -> (String, Int) {
        var text: [UInt8] = []
        var index = start + 1
        while index < bytes.count {
            let byte = bytes[index]
            if byte == .quote { return (String(decoding: text, as: UTF8.self), index + 1) }
            guard byte == .backslash, index + 1 < bytes.count else {
                text.append(byte)
                index += 1
                continue
            }
            let escaped = bytes[index + 1]
            index += 2
            switch escaped {
            case UInt8(ascii: "b"): text.append(0x08)
            case UInt8(ascii: "f"): text.append(0x0C)
            case UInt8(ascii: "n"): text.append(0x0A)
            case UInt8(ascii: "r"): text.append(0x0D)
            case UInt8(ascii: "t"): text.append(0x09)
            case UInt8(ascii: "u"):
                guard let unit = codeUnit(in: bytes, at: index) else { break }
                index += 4
                var value = UInt32(unit)
                // A pair of surrogates (\ud83d\ude00) is one character.
                if (0xD800...0xDBFF).contains(unit), index + 1 < bytes.count, bytes[index] == .backslash,
                    bytes[index + 1] == UInt8(ascii: "u"), let low = codeUnit(in: bytes, at: index + 2),
                    (0xDC00...0xDFFF).contains(low)
                {
                    value = 0x10000 + (UInt32(unit - 0xD800) << 10) + UInt32(low - 0xDC00)
                    index += 6
                }
                UTF8.encode(Unicode.Scalar(value) ?? "\u{FFFD}") { text.append($0) }
            default:
                // \" \\ \/ stand for themselves.
                text.append(escaped)
            }
        }
        return (String(decoding: text, as: UTF8.self), bytes.count)
    }

    /// The index after the closing quote of the string whose opening quote is at `start`.
    private static func endOfString(in bytes: [UInt8], from start: Int) -> Int {
        var index = start + 1
        while index < bytes.count {
            switch bytes[index] {
            case .quote: return index + 1
            case .backslash: index += 2
            default: index += 1
            }
        }
        return bytes.count
    }

    /// The four hex digits of a `\u` escape at `start`.
    private static func codeUnit(in bytes: [UInt8], at start: Int) -> UInt16? {
        guard start + 4 <= bytes.count else { return nil }
        var unit: UInt16 = 0
        for byte in bytes[start..<start + 4] {
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            unit = unit << 4 | UInt16(digit)
        }
        return unit
    }

    /// The text as UTF-8. JSONDecoder also reads UTF-16 and UTF-32 (RFC 8259 section 8.1), which the scan
    /// cannot: UTF-8 JSON never holds a zero byte (a control character in a string must be escaped), so a
    /// zero byte or a UTF-16 byte order mark means one of those, told apart by where the zeros are.
    private static func utf8(_ data: Data) -> [UInt8] {
        let bytes = [UInt8](data)
        let start = bytes.prefix(4) + [UInt8](repeating: 1, count: max(0, 4 - bytes.count))
        let encoding: String.Encoding
        switch (start[0], start[1], start[2], start[3]) {
        case (0, 0, _, _): encoding = .utf32BigEndian
        case (_, 0, 0, 0): encoding = .utf32LittleEndian
        case (0xFE, 0xFF, _, _), (0, _, _, _): encoding = .utf16BigEndian
        case (0xFF, 0xFE, _, _), (_, 0, _, _): encoding = .utf16LittleEndian
        default: return bytes
        }
        guard let text = String(data: data, encoding: encoding) else { return bytes }
        return [UInt8](text.utf8)
    }
}

extension UInt8 {
    fileprivate static let quote = UInt8(ascii: "\"")
    fileprivate static let backslash = UInt8(ascii: "\\")
    fileprivate static let comma = UInt8(ascii: ",")
    fileprivate static let openBrace = UInt8(ascii: "{")
    fileprivate static let closeBrace = UInt8(ascii: "}")
    fileprivate static let openBracket = UInt8(ascii: "[")
    fileprivate static let closeBracket = UInt8(ascii: "]")
}
