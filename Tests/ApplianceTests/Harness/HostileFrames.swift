import Foundation

@testable import Core

/// Frames a hostile or broken client might send, drawn from a seed: garbage, random JSON of every
/// shape, the contract's messages with wrong types, huge numbers and strings, deep nesting, and byte
/// mutations of valid messages.
struct HostileFrames {
    private var random: SplitMix64

    init(seed: UInt64) { random = SplitMix64(seed: seed) }

    static let types = [
        "HELLO", "RESUME_SESSION", "PING", "HOST_START_GAME", "HOST_NEXT_CLUE", "HOST_NEXT", "HOST_SKIP",
        "HOST_FORCE_REVEAL", "HOST_PAUSE", "HOST_RESUME", "HOST_KICK", "HOST_END_SESSION", "HOST_RESTART",
        "HOST_END_GAME", "HOST_SET_PACK", "SOUND_OUTPUT_SET",
        "MUSIC_GAIN_SET", "BRAKE_PULL", "BRAKE_ANSWER_SUBMIT", "FOLLOWUP_ANSWER_SUBMIT", "PLAYER_LEAVE",
    ]

    static let valid: [ClientMessage] = [
        .ping(.init(clientTimeMs: 1)), .hostStartGame, .hostNextClue, .hostNext, .hostSkip, .hostForceReveal,
        .hostPause, .hostResume, .hostKick(.init(playerId: "p1")), .hostEndSession, .hostRestart, .hostEndGame,
        .hostSetPack(.init(packId: "sv-sverige")),
        .musicGainSet(.init(gainDb: -8)), .soundOutputSet(.init(boxMuted: true)), .brakePull(.init()),
        .brakeAnswerSubmit(.init(answerText: "Göteborg")),
        .followupAnswerSubmit(.init(index: 1, answerText: "Liseberg")), .playerLeave, .resumeSession,
    ]

    private mutating func below(_ bound: Int) -> Int { Int(random.next() % UInt64(bound)) }

    private mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }

    /// A JSON value of any kind, up to `depth` levels deep.
    private mutating func value(depth: Int) -> String {
        switch below(depth > 0 ? 12 : 8) {
        case 0: return "null"
        case 1: return pick(["true", "false"])
        case 2:
            return pick([
                "0", "-0", "1e400", "-1e400", "9007199254740993", "1.5", "-7", "1e-400",
                "123456789012345678901234567890",
            ])
        case 3: return "\"\(String(repeating: pick(["x", "å", "🚂", "\\u0000", "\\\"", "<b>"]), count: below(40)))\""
        case 4: return "\"\(String(repeating: "A", count: 4_000 + below(8_000)))\""
        case 5: return pick(["NaN", "Infinity", "undefined", "'single'", "0x1F", "01"])
        case 6: return "\"\(pick(Self.types))\""
        case 7: return "[]"
        case 8: return "[" + (0..<below(4)).map { _ in value(depth: depth - 1) }.joined(separator: ",") + "]"
        case 9:
            return "{"
                + (0..<below(4)).map { _ in
                    "\"\(pick(["type", "payload", "answerText", "index", "gainDb", "playerId", "authToken", "clientTimeMs", "x"]))\":\(value(depth: depth - 1))"
                }.joined(separator: ",") + "}"
        case 10: return "{\"type\":\(value(depth: 0)),\"payload\":\(value(depth: depth - 1))}"
        default: return "{\"type\":\"\(pick(Self.types))\",\"payload\":\(value(depth: depth - 1))}"
        }
    }

    /// One frame's text, under the box's 16 KiB frame limit (bigger frames only close the socket).
    mutating func next() -> String {
        while true {
            let text = draw()
            if text.utf8.count <= 16_000 { return text }
        }
    }

    private mutating func draw() -> String {
        switch below(7) {
        case 0:
            // Garbage.
            return String((0..<below(60)).map { _ in Character(UnicodeScalar(UInt8(32 + below(95)))) })
        case 1:
            // Deep nesting, up to the 16 KiB frame limit.
            let depth = 100 + below(7_000)
            return String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        case 2:
            // A valid message with a byte flipped, dropped or doubled.
            var bytes = [UInt8](pick(Self.valid).encoded())
            for _ in 0..<(1 + below(3)) where !bytes.isEmpty {
                let at = below(bytes.count)
                switch below(3) {
                case 0: bytes[at] = UInt8(32 + below(95))
                case 1: bytes.remove(at: at)
                default: bytes.insert(bytes[at], at: at)
                }
            }
            return String(decoding: bytes, as: UTF8.self)
        case 3:
            // A valid message cut short.
            let text = String(decoding: pick(Self.valid).encoded(), as: UTF8.self)
            return String(text.prefix(below(max(1, text.count))))
        default:
            return value(depth: 4)
        }
    }
}
