import Core
import Foundation

/// What the console knows and shows: the newest projection from the box, the link's state, what the
/// player is typing. Updated only by `receive` (the box) and `press` (the keyboard), so it is testable
/// without a terminal or a socket.
struct ConsoleState: Sendable {
    enum LinkStatus: Sendable, Equatable {
        case connecting
        case online
        /// The socket is gone; the console tries again by itself.
        case offline(attempt: Int)
    }

    /// The host's keys that need a second key to finish.
    enum HostMode: Sendable, Equatable {
        case commands
        case kick
        case confirmEnd
    }

    /// What a player's typing answers, when it answers anything.
    enum AnswerTarget: Sendable, Equatable {
        case brake
        case followup(index: Int)
    }

    let role: Role
    var joinCode: String
    var joinUrl: String?
    var playerId: ParticipantID?
    var projection: Projection?
    var link = LinkStatus.connecting
    /// Server clock minus ours, from the last message's `serverTimeMs`.
    var clockOffsetMs: Int64 = 0
    var input = ""
    var notice: String?
    var hostMode = HostMode.commands
    var musicGainDb = -8.0
    /// Set once the box said the session is over.
    var endedReason: String?
    /// Each player's link as the box last measured it (`CONNECTION_QUALITY`, HOST only).
    var links: [ParticipantID: ConnectionQuality.Link] = [:]
    private var inputTarget: AnswerTarget?

    init(role: Role, joinCode: String, playerId: ParticipantID? = nil) {
        self.role = role
        self.joinCode = joinCode
        self.playerId = playerId
    }

    var phase: Phase { projection?.phase ?? .lobby }

    /// The answer a player's typing goes to right now.
    var answerTarget: AnswerTarget? {
        guard role == .player, let projection else { return nil }
        if projection.phase == .pausedForBrake, let brake = projection.brake, brake.brakeOwnerPlayerId == playerId {
            return .brake
        }
        if projection.phase == .followupQuestion, let followup = projection.followup, followup.isOpen {
            return .followup(index: followup.index)
        }
        return nil
    }

    func name(of playerId: ParticipantID) -> String {
        projection?.players.first { $0.playerId == playerId }?.name
            ?? projection?.scoreboard.first { $0.playerId == playerId }?.name ?? "someone"
    }

    /// Milliseconds left until `serverTime` on the box's clock, never negative.
    func millisecondsLeft(until serverTime: ServerTime, now: Int64) -> Int64 {
        max(0, serverTime - (now + clockOffsetMs))
    }

    func millisecondsLeft(on timer: TimerView, now: Int64) -> Int64 {
        if let remaining = timer.remainingMs { return max(0, remaining) }
        return millisecondsLeft(until: timer.startAtServerMs + timer.durationMs, now: now)
    }

    mutating func receive(_ message: ServerMessage, now: Int64) {
        clockOffsetMs = message.serverTimeMs - now
        switch message.event {
        case .welcome(let welcome):
            link = .online
            playerId = welcome.playerId ?? playerId
            adopt(welcome.projection)
        case .stateSnapshot(let projection):
            link = .online
            adopt(projection)
        case .brakeRejected(let rejection):
            // During a clue, not_allowed: the pull named a clue that has moved on, or this player's
            // own brake ran out on this one.
            notice =
                rejection.reason == .notAllowed && projection?.phase == .clueLevel
                ? "Not on this clue: it just changed, or your brake ran out on it" : Self.explain(rejection.reason)
        case .error(let error):
            notice = "\(error.code): \(error.message)"
        case .sessionEnded(let ended):
            endedReason = ended.reason
        case .brakeAccepted(let brake):
            notice = brake.brakeOwnerPlayerId == playerId ? nil : "\(brake.playerName) pulled the brake"
        case .brakeAnswerLocked(let locked):
            if locked.playerId == playerId { notice = "Answer locked at \(locked.lockedAtLevelPoints) points" }
        case .followupResults, .destinationReveal, .cluePresent, .followupPresent, .finalResultsPresent:
            notice = nil
        case .pong, .playerJoined, .playerLeft, .lobbyUpdated, .destinationResults, .scoreboardUpdate,
            .followupLocked, .timerSync, .audioPlay, .audioStop, .musicSet, .musicStop, .sfxPlay, .uiEffectTrigger:
            break
        case .clockProbe:
            // Answered by the link as soon as it is read (`Link.reply`): nothing to show.
            break
        case .connectionQuality(let quality):
            // Each report is whole: a player missing from it has no connection to measure.
            links = Dictionary(quality.players.map { ($0.playerId, $0) }, uniquingKeysWith: { _, last in last })
        case .statePatch:
            // Sent only to clients that ask for patches; the console takes whole snapshots.
            break
        case .musicGainSet(let gain):
            musicGainDb = gain.gainDb
        }
    }

    private mutating func adopt(_ projection: Projection) {
        // A snapshot from before a reconnect may be older than one already shown.
        if let current = self.projection, current.version > projection.version { return }
        self.projection = projection
        joinCode = projection.joinCode
        joinUrl = projection.joinUrl
        if let reason = projection.endedReason { endedReason = reason }
        let target = answerTarget
        if target != inputTarget {
            // Typing belongs to one question: a new question starts with an empty line.
            input = ""
            inputTarget = target
        }
    }

    private static func explain(_ reason: BrakeRejection) -> String {
        switch reason {
        case .alreadyPaused: "Too late: the brake is already pulled"
        case .notAllowed: "The brake works only while a clue is showing"
        case .rateLimited: "Easy: one pull every 2 seconds"
        case .alreadyAnswered: "You have already answered this destination"
        case .beaten: "So close: someone pressed a moment before you"
        }
    }
}
