import Core
import Foundation
import Synchronization

/// One bot at play: its seat, its link to the box (lagged as `--lag` says), its mind. One loop owns
/// its state, as `Play` does for a person's console: the box's messages, the plans that come due,
/// and the order to leave.
final class Bot: Sendable {
    enum Ending: Sendable, Equatable {
        /// It left when told to (PLAYER_LEAVE, or the box did not answer in time).
        case left
        case sessionEnded
        /// The box closed its seat (kicked).
        case removed
    }

    private enum Input: Sendable {
        case link(LinkEvent)
        case due(BotMind.Action)
        case leave
        case leaveTimeout
    }

    let name: String
    let seat: Seat
    let lag: Lag
    private let link: Link
    private let inputs: AsyncStream<Input>
    private let feed: AsyncStream<Input>.Continuation

    init(name: String, seat: Seat, webSocketURL: String, lag: Lag, seed: UInt64) {
        self.name = name
        self.seat = seat
        self.lag = lag
        link = Link(url: webSocketURL, token: seat.token, lag: lag, seed: seed)
        (inputs, feed) = AsyncStream.makeStream(of: Input.self)
    }

    /// Leave the session: PLAYER_LEAVE (once the socket is up), then `play` returns.
    func leave() { feed.yield(.leave) }

    /// Plays until the session ends, the seat is taken away, or `leave`.
    func play(_ mind: BotMind, log: BotLog) async -> Ending {
        var mind = mind
        let feed = self.feed
        let link = self.link
        let linkTask = Task { await link.run() }
        let forward = Task {
            for await event in link.events { feed.yield(.link(event)) }
        }
        let timers = Mutex<[Task<Void, Never>]>([])
        func after(_ milliseconds: Int, _ input: Input) {
            let task = Task {
                try? await Task.sleep(for: .milliseconds(milliseconds))
                feed.yield(input)
            }
            timers.withLock { $0.append(task) }
        }
        defer {
            linkTask.cancel()
            forward.cancel()
            timers.withLock { $0.forEach { $0.cancel() } }
        }

        var state = ConsoleState(role: .player, joinCode: seat.joinCode, playerId: seat.playerId)
        var leaving = false
        var leaveSent = false
        func now() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }
        for await input in inputs {
            switch input {
            case .link(.message(let message)):
                state.receive(message, now: now())
                log.heard(message, by: self, state: state, knows: mind.knownDestination)
                if leaving {
                    if !leaveSent {
                        link.send(.playerLeave)
                        leaveSent = true
                    }
                    continue
                }
                for plan in mind.plans(for: state) { after(plan.afterMs, .due(plan.action)) }
                if state.endedReason != nil { return .sessionEnded }
            case .link(.offline(let attempt)):
                // Whatever was sent before the drop may be lost: the leave is sent again once back.
                leaveSent = false
                if attempt == 1 { log.say("\(name) lost the box; reconnecting…") }
            case .link(.closed(let code, _)):
                if leaving { return .left }
                if code == Int(SocketClose.sessionEnded.code) || state.endedReason != nil { return .sessionEnded }
                log.say("\(name) was removed from the session")
                return .removed
            case .due(let action):
                guard !leaving, let message = BotMind.message(for: action, state: state, at: link.clock.now()) else {
                    continue
                }
                link.send(message)
                log.did(action, by: self, state: state)
            case .leave:
                guard !leaving else { continue }
                leaving = true
                if state.projection != nil {
                    link.send(.playerLeave)
                    leaveSent = true
                }
                // The box closes the seat once it has the leave; it is not waited for long.
                after(1500 + 2 * lag.maxMs, .leaveTimeout)
            case .leaveTimeout:
                return .left
            }
        }
        return .left
    }
}

/// The bots' running commentary on standard output, one line at a time: what each bot does, and
/// the game as they see it (each event said once, by whichever bot hears it first).
final class BotLog: Sendable {
    private let started = ContinuousClock.now
    /// The game's events already said, and when: the other bots hear them a little later.
    private let said = Mutex<[String: ContinuousClock.Instant]>([:])
    private let write: @Sendable (String) -> Void

    init(write: @escaping @Sendable (String) -> Void = BotLog.standardOutput) { self.write = write }

    /// Unbuffered: the lines show as they happen, also when the output goes to a file or a pipe.
    static let standardOutput: @Sendable (String) -> Void = { line in
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    func say(_ line: String) {
        let elapsed = (ContinuousClock.now - started).components
        let seconds = Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
        write(String(format: "[%6.1f s] ", seconds) + line)
    }

    /// Says `line` unless another bot said the same event (`key`) in the last few seconds.
    private func sayOnce(_ key: String, _ line: String) {
        let now = ContinuousClock.now
        let fresh = said.withLock { said in
            if let last = said[key], now - last < .seconds(20) { return false }
            said[key] = now
            return true
        }
        if fresh { say(line) }
    }

    func did(_ action: BotMind.Action, by bot: Bot, state: ConsoleState) {
        switch action {
        case .pull(let key):
            say("\(bot.name) pulls the brake at \(key.levelPoints) points")
        case .brakeAnswer(_, let text):
            say("\(bot.name) answers \"\(text)\"")
        case .followupAnswer(_, let index, let text):
            say("\(bot.name) answers followup \(index): \"\(text)\"")
        }
    }

    func heard(_ message: ServerMessage, by bot: Bot, state: ConsoleState, knows: Destination?) {
        let round = state.projection?.round.map { "\($0.index)/\($0.total)" } ?? "-"
        switch message.event {
        case .cluePresent(let clue):
            let text = clue.clueText.count > 70 ? clue.clueText.prefix(69) + "…" : clue.clueText
            sayOnce("clue \(round) \(clue.levelPoints)", "Round \(round) · \(clue.levelPoints) points: \(text)")
        case .brakeAccepted(let brake) where brake.brakeOwnerPlayerId == bot.seat.playerId:
            var how = ""
            if let compensated = brake.compensatedMs, let decided = brake.decidedAfterMs {
                how = " (judged \(compensated) ms before it arrived; decided \(decided) ms after the first pull)"
            }
            say("\(bot.name) has the brake at \(brake.levelPoints) points\(how)")
        case .brakeRejected(let rejection):
            say("\(bot.name)'s pull was refused (\(rejection.reason.rawValue))")
        case .destinationReveal(let reveal):
            sayOnce("reveal \(round)", "The destination was \(reveal.destinationName), \(reveal.country)")
        case .destinationResults(let results):
            let line = results.results.map { result in
                "\(state.name(of: result.playerId)) \(result.isCorrect ? "right, +\(result.pointsAwarded)" : "wrong")"
            }
            sayOnce(
                "results \(round)", "Answers: " + (line.isEmpty ? "nobody answered" : line.joined(separator: " · ")))
        case .followupPresent(let followup):
            sayOnce(
                "followup \(round) \(followup.index)",
                "Followup \(followup.index) of \(followup.total): \(followup.questionText)")
        case .followupResults(let results):
            let right = results.results.filter(\.isCorrect).map { state.name(of: $0.playerId) }
            sayOnce(
                "followup results \(round) \(results.index)",
                "Followup \(results.index): \(results.correctAnswer); right: \(right.isEmpty ? "nobody" : right.joined(separator: ", "))"
            )
        case .scoreboardUpdate(let board):
            let top = board.standings.prefix(6).map { "\($0.name) \($0.points)" }.joined(separator: " · ")
            sayOnce("scoreboard \(round) \(board.standings.map(\.points))", "Scoreboard: \(top)")
        case .finalResultsPresent(let results):
            let winners = (results.isTie ? results.tieWinners : results.winnerPlayerId.map { [$0] } ?? [])
                .map { state.name(of: $0) }
            sayOnce("final", "Game over: \(winners.isEmpty ? "no winner" : winners.joined(separator: " and ")) won")
        case .sessionEnded:
            sayOnce("ended", "The session has ended")
        default:
            break
        }
    }
}
