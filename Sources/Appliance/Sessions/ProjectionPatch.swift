import Core

/// The JSON Patch operations (RFC 6902) that turn one projection's JSON into another's, for
/// STATE_PATCH. Each operation is kept as its JSON text, ready to be joined into a message.
///
/// A change in a 200-player session sends every player a 29 KB snapshot, of which typically a
/// phase, a version, a brake and a timer differ: the patch is about 500 bytes (docs/protocol.md,
/// "State patches"; docs/performance.md, "State patches").
struct ProjectionPatch {
    private(set) var operations: [String] = []

    /// The operations from `old` to `new`, leaving out `you` (each player's own; see `you(from:to:)`).
    init(from old: Projection, to new: Projection) {
        member("version", old.version, new.version)
        member("phase", old.phase, new.phase)
        member("paused", old.paused, new.paused)
        member("joinCode", old.joinCode, new.joinCode)
        member("joinUrl", old.joinUrl, new.joinUrl)
        member("settings", old.settings, new.settings)
        member("hasHost", old.hasHost, new.hasHost)
        member("hasTv", old.hasTv, new.hasTv)
        member("captainPlayerId", old.captainPlayerId, new.captainPlayerId)
        list("players", old.players, new.players)
        member("round", old.round, new.round)
        if let before = old.journey, let after = new.journey {
            list("journey", before, after)
        } else {
            member("journey", old.journey, new.journey)
        }
        member("sound", old.sound, new.sound)
        member("clue", old.clue, new.clue)
        member("brake", old.brake, new.brake)
        list("lockedAnswers", old.lockedAnswers, new.lockedAnswers)
        member("followup", old.followup, new.followup)
        list("scoreboard", old.scoreboard, new.scoreboard)
        list("timers", old.timers, new.timers)
        member("finalResults", old.finalResults, new.finalResults)
        // Written only when set (the others are always there, as null when absent).
        switch (old.endedReason, new.endedReason) {
        case (nil, let reason?): add("/endedReason", reason)
        case (_?, nil): remove("/endedReason")
        case (let before?, let after?) where before != after: replace("/endedReason", after)
        default: break
        }
    }

    /// The operation that brings a player's `you` up to date, if it changed.
    static func you(from old: Projection.You?, to new: Projection.You?) -> String? {
        guard old != new else { return nil }
        var patch = ProjectionPatch()
        patch.replace("/you", new)
        return patch.operations[0]
    }

    private init() {}

    private mutating func member<Value: Encodable & Equatable>(_ key: String, _ old: Value, _ new: Value) {
        if old != new { replace("/" + key, new) }
    }

    /// An array: the elements that changed, those added at the end or removed from it; or the
    /// whole array when that is about as short (a reordered scoreboard, a player gone from the middle).
    private mutating func list<Element: Encodable & Equatable>(_ key: String, _ old: [Element], _ new: [Element]) {
        guard old != new else { return }
        let path = "/" + key
        let common = min(old.count, new.count)
        let changed = (0..<common).filter { old[$0] != new[$0] }
        guard (changed.count + abs(old.count - new.count)) * 2 <= new.count else {
            replace(path, new)
            return
        }
        for index in changed { replace("\(path)/\(index)", new[index]) }
        for element in new[common...] { add(path + "/-", element) }
        // From the end, so that each index is still the element's own.
        for index in (common..<old.count).reversed() { remove("\(path)/\(index)") }
    }

    private mutating func replace(_ path: String, _ value: some Encodable) { operation("replace", path, value) }

    private mutating func add(_ path: String, _ value: some Encodable) { operation("add", path, value) }

    private mutating func remove(_ path: String) { operations.append(#"{"op":"remove","path":""# + path + #""}"#) }

    /// Paths are made of the projection's own keys and indices, which need no escaping.
    private mutating func operation(_ op: String, _ path: String, _ value: some Encodable) {
        operations.append(#"{"op":""# + op + #"","path":""# + path + #"","value":"# + WireEncoder.json(value) + "}")
    }
}
