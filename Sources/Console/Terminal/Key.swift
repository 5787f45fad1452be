/// One key press, decoded from the bytes a terminal sends in raw mode.
enum Key: Sendable, Equatable {
    case character(Character)
    case enter
    case backspace
    case escape
    /// Ctrl-C or Ctrl-D: always leaves.
    case interrupt
    /// An arrow, a function key, anything else the console does not use.
    case other

    /// Every key in `bytes`. A UTF-8 character split across reads is not expected: a terminal writes a
    /// key press in one go.
    static func decode(_ bytes: [UInt8]) -> [Key] {
        var keys: [Key] = []
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case 3, 4:
                keys.append(.interrupt)
                index += 1
            case 13, 10:
                keys.append(.enter)
                // A CR LF pair is one Enter.
                index += byte == 13 && index + 1 < bytes.count && bytes[index + 1] == 10 ? 2 : 1
            case 8, 127:
                keys.append(.backspace)
                index += 1
            case 27:
                index += 1
                guard index < bytes.count, bytes[index] == UInt8(ascii: "[") || bytes[index] == UInt8(ascii: "O")
                else {
                    keys.append(.escape)
                    continue
                }
                // A control sequence runs to its final byte (0x40–0x7E).
                index += 1
                while index < bytes.count, !(0x40...0x7E).contains(bytes[index]) { index += 1 }
                index += 1
                keys.append(.other)
            case 0..<32:
                keys.append(.other)
                index += 1
            default:
                let length =
                    byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 1
                let end = min(bytes.count, index + length)
                let text = String(decoding: bytes[index..<end], as: UTF8.self)
                keys.append(contentsOf: text.map { $0 == "\u{FFFD}" ? .other : .character($0) })
                index = end
            }
        }
        return keys
    }
}
