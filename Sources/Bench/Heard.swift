import Foundation

/// What a bench client reads from a server message: its type, its stamp, and the few payload fields
/// the script reacts to. Every other field is skipped rather than decoded into `ServerMessage`: the
/// 2,400 clients share the server's two cores, and parsing whole projections would take their time
/// from the server being measured. (The hosts do decode every message fully, as a wire check.)
struct Heard: Decodable, Sendable {
    var type: String
    var serverTimeMs: Int64
    var payload: Payload?

    struct Payload: Decodable, Sendable {
        init() {}
        var version: Int?
        var phase: String?
        var playerId: String?
        var brakeOwnerPlayerId: String?
        var index: Int?
        var levelIndex: Int?
        var levelPoints: Int?
        var code: String?
        var probeId: Int?
    }

    /// The events that go to every seat of a table during a game, in the same order for everyone:
    /// the sequence a host hears of these is what every TV and player must hear too.
    static let tableWide: Set<String> = [
        "CLUE_PRESENT", "BRAKE_ACCEPTED", "BRAKE_ANSWER_LOCKED", "DESTINATION_REVEAL", "DESTINATION_RESULTS",
        "SCOREBOARD_UPDATE", "FOLLOWUP_PRESENT", "FOLLOWUP_LOCKED", "FOLLOWUP_RESULTS", "FINAL_RESULTS_PRESENT",
    ]
}

extension Heard {
    /// Reads the fields by looking for their keys rather than parsing the JSON: the first
    /// `"serverTimeMs":` is the envelope's (it comes before the payload in both servers' messages),
    /// and in a payload the first occurrence of each key the script needs is the top-level one
    /// (`version` and `phase` open a snapshot; the events hold no nested copies of theirs).
    init?(scanning raw: UnsafeRawBufferPointer) {
        let found: Heard? = raw.withMemoryRebound(to: UInt8.self) { bytes in
            guard let type = Self.string(after: #""type":""#, in: bytes, from: 0),
                let stamp = Self.number(after: #""serverTimeMs":"#, in: bytes, from: 0)
            else { return nil }
            guard let payloadStart = Self.position(after: #""payload":"#, in: bytes, from: 0) else {
                return Heard(type: type, serverTimeMs: stamp, payload: nil)
            }
            var payload = Payload()
            switch type {
            case "STATE_SNAPSHOT":
                payload.version = Self.number(after: #""version":"#, in: bytes, from: payloadStart).map(Int.init)
                payload.phase = Self.string(after: #""phase":""#, in: bytes, from: payloadStart)
            case "STATE_PATCH":
                // The payload opens with the new version; a new phase is an operation on `/phase`.
                payload.version = Self.number(after: #""version":"#, in: bytes, from: payloadStart).map(Int.init)
                payload.phase = Self.string(after: #""path":"/phase","value":""#, in: bytes, from: payloadStart)
            case "WELCOME": payload.playerId = Self.string(after: #""playerId":""#, in: bytes, from: payloadStart)
            case "BRAKE_ACCEPTED":
                payload.brakeOwnerPlayerId = Self.string(
                    after: #""brakeOwnerPlayerId":""#, in: bytes, from: payloadStart)
            case "CLUE_PRESENT":
                payload.levelIndex = Self.number(after: #""levelIndex":"#, in: bytes, from: payloadStart).map(Int.init)
                payload.levelPoints = Self.number(after: #""levelPoints":"#, in: bytes, from: payloadStart).map(
                    Int.init)
            case "FOLLOWUP_PRESENT":
                payload.index = Self.number(after: #""index":"#, in: bytes, from: payloadStart).map(Int.init)
            case "ERROR": payload.code = Self.string(after: #""code":""#, in: bytes, from: payloadStart)
            case "CLOCK_PROBE":
                payload.probeId = Self.number(after: #""probeId":"#, in: bytes, from: payloadStart).map(Int.init)
            default: break
            }
            return Heard(type: type, serverTimeMs: stamp, payload: payload)
        }
        guard let found else { return nil }
        self = found
    }

    private static func position(after key: String, in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        let needle = Array(key.utf8)
        guard let first = needle.first, bytes.count >= needle.count else { return nil }
        var index = start
        let last = bytes.count - needle.count
        outer: while index <= last {
            guard bytes[index] == first else {
                index += 1
                continue
            }
            for offset in 1..<needle.count where bytes[index + offset] != needle[offset] {
                index += 1
                continue outer
            }
            return index + needle.count
        }
        return nil
    }

    private static func string(after key: String, in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> String? {
        guard var end = position(after: key, in: bytes, from: start) else { return nil }
        let begin = end
        while end < bytes.count, bytes[end] != UInt8(ascii: "\""), bytes[end] != UInt8(ascii: "\\") { end += 1 }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[begin..<end]), as: UTF8.self)
    }

    private static func number(after key: String, in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int64? {
        guard var index = position(after: key, in: bytes, from: start) else { return nil }
        var value: Int64 = 0
        var digits = 0
        while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
            value = value * 10 + Int64(bytes[index] - UInt8(ascii: "0"))
            index += 1
            digits += 1
        }
        return digits > 0 ? value : nil
    }
}
