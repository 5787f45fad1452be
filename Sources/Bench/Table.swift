import Core
import Foundation
import Synchronization

/// Who pulls the brake at a clue, and when each accepted pull was sent (to time BRAKE_ACCEPTED from it).
final class TableLedger: Sendable {
    enum Brakes: Sendable {
        /// Two players pull together at the 10-, 6- and 2-point clues, taking turns across levels.
        case pairs
        /// Every player pulls at once at every clue: the arbitration stress.
        case everyone
    }

    let brakes: Brakes
    /// How long a player whose pull was accepted takes to answer.
    let answerMs: Int
    private let players: Mutex<[String]> = Mutex([])
    /// When the pull behind each BRAKE_ACCEPTED was sent, by owner and the event's stamp. A player's
    /// latest pull is not always the one answered next: when everyone pulls, a pull of the last clue
    /// can still be on its way when the player pulls at the next one (the server answers both, in order).
    private let pulls = Mutex<[String: Double]>([:])

    init(brakes: Brakes, answerMs: Int) {
        self.brakes = brakes
        self.answerMs = answerMs
    }

    func seat(_ playerId: String) { players.withLock { $0.append(playerId) } }

    func shouldPull(_ playerId: String, levelIndex: Int) -> Bool {
        switch brakes {
        case .everyone: return true
        case .pairs:
            guard levelIndex % 2 == 1 else { return false }
            return players.withLock { players in
                guard let position = players.firstIndex(of: playerId), !players.isEmpty else { return false }
                let first = (levelIndex * 2) % players.count
                return position == first || position == (first + 1) % players.count
            }
        }
    }

    func accepted(owner: String, stamp: Int64, sentAt: Double) {
        pulls.withLock { $0["\(owner)@\(stamp)"] = sentAt }
    }

    func pullSent(owner: String, stamp: Int64) -> Double? { pulls.withLock { $0["\(owner)@\(stamp)"] } }
}

/// One session: created and joined over REST, every seat connected, then a scripted game run by
/// its host; afterwards, what every seat heard is checked against what the host heard.
final class Table: Sendable {
    struct Created: Decodable {
        var sessionId: String
        var hostAuthToken: String?
        var joinToken: String
        var tvJoinToken: String?
    }
    struct Joined: Decodable {
        var playerId: String
        var playerAuthToken: String
    }
    struct TvJoined: Decodable {
        var tvAuthToken: String
    }

    struct Timing: Sendable {
        var create: [Double] = []
        var join: [Double] = []
    }

    let ledger: TableLedger
    let seats: [Seat]
    let tokens: [String]
    let timing: Timing
    var host: Seat { seats[0] }

    /// The fast settings the contract allows: one destination, one followup, no intro, no finale wait.
    static let settings: [String: any Sendable] = [
        "destinationsCount": 1, "followupsPerDestination": 1, "introMs": 0, "finaleMs": 0,
        "followupSeconds": 30, "brakeAnswerSeconds": brakeAnswerMs / 1_000,
    ]
    /// How long the box waits for a brake's answer before it releases the brake.
    static let brakeAnswerMs = 10_000

    /// Creates the session as HOST, seats a TV and `players` players.
    init(server: RunningServer, players: Int, brakes: TableLedger.Brakes, answerMs: Int, strict: Bool) async throws {
        ledger = TableLedger(brakes: brakes, answerMs: answerMs)
        var timing = Timing()
        let base = server.restBase
        let (created, createMs) = try await REST.post(
            base + "/v1/sessions", ["role": "HOST", "settings": Self.settings], as: Created.self)
        timing.create.append(createMs)
        var seats = [Seat(role: .host, playerId: "", table: ledger, strict: strict)]
        var tokens = [created.hostAuthToken ?? ""]
        let (tv, tvMs) = try await REST.post(
            base + "/v1/sessions/\(created.sessionId)/tv", ["tvJoinToken": created.tvJoinToken ?? ""],
            as: TvJoined.self)
        timing.join.append(tvMs)
        seats.append(Seat(role: .tv, playerId: "", table: ledger, strict: strict))
        tokens.append(tv.tvAuthToken)
        for number in 1...max(1, players) {
            let (joined, joinMs) = try await REST.post(
                base + "/v1/sessions/\(created.sessionId)/join",
                ["name": "Player \(number)", "role": "PLAYER", "joinToken": created.joinToken], as: Joined.self)
            timing.join.append(joinMs)
            ledger.seat(joined.playerId)
            seats.append(Seat(role: .player, playerId: joined.playerId, table: ledger, strict: strict))
            tokens.append(joined.playerAuthToken)
        }
        self.seats = seats
        self.tokens = tokens
        self.timing = timing
    }

    /// Plays `games` games as the host: each step waits `stepMs` (the host reading the screen), then
    /// does what a host does in that phase. False when the table did not finish by `deadlineMs`.
    func play(games: Int, stepMs: Int, deadlineMs: Double) async -> Bool {
        let host = self.host
        var started = 0
        var actedVersion = -1
        var actedAt = 0.0
        // Rejected or lost commands would leave the host waiting: wake it now and then to look again.
        let watchdog = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(500))
                host.nudge()
            }
        }
        defer { watchdog.cancel() }
        for await _ in host.changes {
            guard WallClock.nowMs() < deadlineMs else { return false }
            let seen = host.notes.withLock { ($0.version, $0.phase) }
            if seen.0 == actedVersion && WallClock.nowMs() - actedAt < 3_000 { continue }
            try? await Task.sleep(for: .milliseconds(stepMs))
            let now = host.notes.withLock { ($0.version, $0.phase) }
            // Something happened meanwhile (a brake, a timer): look at the new state first.
            guard now.0 == seen.0 else { continue }
            let command: ClientMessage?
            switch now.1 {
            case "LOBBY":
                guard started < games else { return true }
                started += 1
                command = .hostStartGame
            case "ROUND_INTRO", "CLUE_LEVEL": command = .hostNextClue
            case "REVEAL_DESTINATION", "FOLLOWUP_QUESTION", "SCOREBOARD", "FINAL_RESULTS": command = .hostNext
            case "ROUND_END":
                guard started < games else { return true }
                command = .hostRestart
            default: command = nil  // a brake: its owner answers
            }
            guard let command else { continue }
            host.send(command)
            actedVersion = now.0
            actedAt = WallClock.nowMs()
        }
        return false
    }

    struct Tally: Sendable {
        var expected = 0
        var lost = 0
        var outOfOrder = 0
        var stampsBack = 0
    }

    /// Every TV and player must have heard the host's table-wide events, in the host's order.
    func tally() -> Tally {
        let expected = host.notes.withLock { $0.sequence }
        var tally = Tally()
        for seat in seats {
            let heard = seat.notes.withLock { ($0.sequence, $0.versionsBack, $0.stampsBack) }
            tally.expected += expected.count
            tally.outOfOrder += heard.1
            tally.stampsBack += heard.2
            // Greedy match of the host's sequence as a subsequence of what this seat heard.
            var position = heard.0.startIndex
            var matched = 0
            for type in expected {
                guard let found = heard.0[position...].firstIndex(of: type) else { continue }
                if found != position { tally.outOfOrder += 1 }
                matched += 1
                position = heard.0.index(after: found)
            }
            tally.lost += expected.count - matched
        }
        return tally
    }
}
