import Foundation

/// What a bench client reads from a server message: its type, its stamp, and the few payload fields
/// the script reacts to. Every other field is skipped rather than decoded into `ServerMessage`: the
/// 2,400 clients share the server's two cores, and decoding whole projections would take their time
/// from the server being measured. (The hosts do decode every message fully, as a wire check.)
struct Heard: Decodable, Sendable {
    var type: String
    var serverTimeMs: Int64
    var payload: Payload?

    struct Payload: Decodable, Sendable {
        var version: Int?
        var phase: String?
        var playerId: String?
        var brakeOwnerPlayerId: String?
        var index: Int?
        var levelIndex: Int?
        var code: String?
    }

    /// The events that go to every seat of a table during a game, in the same order for everyone:
    /// the sequence a host hears of these is what every TV and player must hear too.
    static let tableWide: Set<String> = [
        "CLUE_PRESENT", "BRAKE_ACCEPTED", "BRAKE_ANSWER_LOCKED", "DESTINATION_REVEAL", "DESTINATION_RESULTS",
        "SCOREBOARD_UPDATE", "FOLLOWUP_PRESENT", "FOLLOWUP_LOCKED", "FOLLOWUP_RESULTS", "FINAL_RESULTS_PRESENT",
    ]
}
