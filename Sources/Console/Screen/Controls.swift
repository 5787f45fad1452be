import Core
import Foundation

/// What a key press asks the console to do.
enum ConsoleAction: Sendable, Equatable {
    case send(ClientMessage)
    case quit
}

extension ConsoleState {
    static let maxAnswerLength = 100

    /// The host's keys, shown on its help line (`p` as what it does now) and in `--help` (`paused`: nil).
    static func hostKeys(paused: Bool?) -> [String] {
        let pause =
            switch paused {
            case true: "p resume"
            case false: "p pause"
            case nil: "p pause/resume"
            }
        return [
            "s start", "Space/n next", "c clue", "k skip", "r reveal", pause, "x kick", "t restart", "e end",
            "+/- music",
        ]
    }
    static var hostHelp: String { hostKeys(paused: nil).joined(separator: "  ") }

    static let confirmEndNotice = "End the session for everyone? Press y to end, any other key cancels"

    /// A captain's keys (CONTRACT 4.2), beside the brake: those of a host they may use.
    static let captainKeys = "s start  p pause/resume  t play again  e end"

    /// Whether this player has the controls of a game without a host.
    var isCaptain: Bool {
        guard role == .player, let projection, let playerId else { return false }
        return projection.captainPlayerId == playerId && !projection.hasHost
    }

    /// Whether this player's answer to the destination shown is locked: the brake is not theirs to
    /// pull again.
    var answerLocked: Bool {
        guard role == .player, let projection, let playerId else { return false }
        return projection.lockedAnswers.contains { $0.playerId == playerId }
    }

    /// Applies a key: the state changes (typing, modes, notices) and at most one action comes back.
    /// `clientMs` is when the key was pressed on the link's clock (`MonotonicClock`, the clock of
    /// the probes' echoes): a brake pull carries it as `atClientMs`, so the box judges it by then.
    mutating func press(_ key: Key, at clientMs: Int64? = nil) -> ConsoleAction? {
        if key == .interrupt { return .quit }
        switch role {
        case .player: return pressAsPlayer(key, at: clientMs)
        case .host: return pressAsHost(key)
        case .tv: return key == .character("q") ? .quit : nil
        }
    }

    private mutating func pressAsPlayer(_ key: Key, at clientMs: Int64?) -> ConsoleAction? {
        guard let target = answerTarget else {
            // The captain's end, as the host's: only after a y.
            if hostMode == .confirmEnd {
                hostMode = .commands
                notice = nil
                return key == .character("y") && isCaptain ? .send(.hostEndSession) : nil
            }
            switch key {
            case .character("s") where isCaptain: return .send(.hostStartGame)
            case .character("p") where isCaptain: return .send(projection?.paused == true ? .hostResume : .hostPause)
            case .character("t") where isCaptain: return .send(.hostRestart)
            case .character("e") where isCaptain:
                hostMode = .confirmEnd
                notice = Self.confirmEndNotice
                return nil
            case .character(" "), .enter:
                // The box would refuse either; said here as it is, not as "too late".
                if projection?.paused == true {
                    notice =
                        projection?.phase == .clueLevel
                        ? "The game is paused: the brake works again once it resumes" : "The game is paused"
                    return nil
                }
                if answerLocked {
                    notice = "You have already answered this destination"
                    return nil
                }
                guard phase == .clueLevel || phase == .pausedForBrake else {
                    notice = "The brake works only while a clue is showing"
                    return nil
                }
                return .send(
                    .brakePull(
                        ClientMessage.BrakePull(atClientMs: clientMs, levelPoints: projection?.clue?.levelPoints)))
            case .character, .backspace, .escape, .interrupt, .other:
                return nil
            }
        }
        switch key {
        case .character(let character):
            if input.count < Self.maxAnswerLength { input.append(character) }
            return nil
        case .backspace:
            if !input.isEmpty { input.removeLast() }
            return nil
        case .escape:
            input = ""
            return nil
        case .enter:
            let answer = chosenAnswer()
            guard !answer.isEmpty else { return nil }
            switch target {
            case .brake:
                // The line stays until the box locks it (then the question is gone), so a refused
                // answer can be sent again; while paused the box would refuse it anyway.
                if projection?.paused == true {
                    notice = "The game is paused: send your answer once the host resumes"
                    return nil
                }
                return .send(.brakeAnswerSubmit(ClientMessage.AnswerSubmit(answerText: answer)))
            case .followup(let index):
                // A number that is no option (and not an option's own words) is a slip, not an answer.
                if let options = projection?.followup?.options, !options.isEmpty, Int(answer) != nil,
                    !options.contains(answer)
                {
                    notice = "There is no option \(answer): choose 1–\(options.count), or type the answer"
                    return nil
                }
                input = ""
                notice = "Answer sent: \(answer) (you can change it until the time is up)"
                return .send(
                    .followupAnswerSubmit(ClientMessage.FollowupAnswerSubmit(index: index, answerText: answer)))
            }
        case .interrupt, .other:
            return nil
        }
    }

    /// The typed answer; a lone number picks that option of a multiple-choice followup.
    private func chosenAnswer() -> String {
        let answer = input.trimmingCharacters(in: .whitespaces)
        if case .followup = answerTarget, let options = projection?.followup?.options, let number = Int(answer),
            options.indices.contains(number - 1)
        {
            return options[number - 1]
        }
        return answer
    }

    private mutating func pressAsHost(_ key: Key) -> ConsoleAction? {
        switch hostMode {
        case .kick:
            hostMode = .commands
            guard case .character(let character) = key, let number = character.wholeNumberValue,
                let players = projection?.players, players.indices.contains(number - 1)
            else {
                notice = nil
                return nil
            }
            notice = "Kicked \(players[number - 1].name)"
            return .send(.hostKick(ClientMessage.Kick(playerId: players[number - 1].playerId)))
        case .confirmEnd:
            hostMode = .commands
            notice = nil
            return key == .character("y") ? .send(.hostEndSession) : nil
        case .commands:
            break
        }
        notice = nil
        switch key {
        case .character("s"): return .send(.hostStartGame)
        case .character(" "), .character("n"), .enter: return .send(.hostNext)
        case .character("c"): return .send(.hostNextClue)
        case .character("k"): return .send(.hostSkip)
        case .character("r"): return .send(.hostForceReveal)
        case .character("p"): return .send(projection?.paused == true ? .hostResume : .hostPause)
        case .character("t"): return .send(.hostRestart)
        case .character("x"):
            guard let players = projection?.players, !players.isEmpty else {
                notice = "Nobody to kick"
                return nil
            }
            hostMode = .kick
            notice = "Kick which player? Press their number (1–\(min(players.count, 9))), any other key cancels"
            return nil
        case .character("e"):
            hostMode = .confirmEnd
            notice = Self.confirmEndNotice
            return nil
        case .character("+"), .character("-"):
            let step = key == .character("+") ? 4.0 : -4.0
            musicGainDb = min(0, max(-60, musicGainDb + step))
            notice = "Music \(Int(musicGainDb)) dB"
            return .send(.musicGainSet(MusicGain(gainDb: musicGainDb)))
        case .character("q"): return .quit
        case .character, .backspace, .escape, .interrupt, .other: return nil
        }
    }
}
