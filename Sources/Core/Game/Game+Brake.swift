import Foundation

/// The emergency brake: each pull judged by when it was pressed, the earliest winning after the
/// arbitration window; one locked answer per player per destination (docs/protocol.md, "The fair brake").
extension Game {
    /// A pull that arrived `now`, judged pressed at `timing.judgedAt` (at its arrival without a
    /// timing). `levelPoints`, when the client sends it, is the clue the player saw.
    mutating func brakePull(
        by player: ParticipantID, on levelPoints: Int?, timing: PullTiming?, now: ServerTime,
        into out: inout EffectList
    ) {
        let judgedAt = timing?.judgedAt ?? now
        let levelIndex: Int
        switch judgedLevel(of: player, claimed: levelPoints, judgedAt: judgedAt, timing: timing, now: now) {
        case .failure(let reason):
            if reason != .rateLimited { lastBrakePull[player] = now }
            out.changesGame = false
            out.send(.brakeRejected(BrakeRejected(reason: reason)), to: .participant(player))
            return
        case .success(let index):
            levelIndex = index
        }
        lastBrakePull[player] = now
        let pull = Arbitration.Pull(playerId: player, arrivedAt: now, judgedAt: judgedAt, levelIndex: levelIndex)
        let windowMs = timing?.windowMs ?? 0
        var arbitration: Arbitration
        if let pending = self.arbitration {
            arbitration = pending
            arbitration.pulls.append(pull)
            arbitration.windowMs = max(arbitration.windowMs, windowMs)
        } else {
            // The clue's countdown stops at the first pull; the brake that wins keeps it stopped.
            for index in timers.indices where timers[index].purpose == .clue {
                timers[index].hold(.brake, at: now)
            }
            arbitration = Arbitration(firstArrivalAt: now, decideAt: now, windowMs: windowMs, pulls: [pull])
        }
        // Until no pull still in flight could be judged earlier than the best so far, and no longer
        // than the contract's bound after the first arrival.
        let best = arbitration.pulls.map(\.judgedAt).min() ?? now
        arbitration.decideAt = min(
            arbitration.firstArrivalAt + BrakeJudge.maxLookbackMs, max(now, best + arbitration.windowMs))
        self.arbitration = arbitration
        if arbitration.decideAt <= now {
            decideBrake(now: now, into: &out)
        } else {
            out.changesGame = false
            out.changesHidden = true
        }
    }

    /// The window has closed (or a command that moves the game on came first): the earliest judged
    /// pull wins, the others are told they were beaten.
    mutating func decideBrake(now: ServerTime, into out: inout EffectList) {
        guard let arbitration else { return }
        self.arbitration = nil
        guard let winner = arbitration.winner, let round, let shown = round.levelIndex,
            players.contains(where: { $0.id == winner.playerId })
        else { return }
        let levelPoints = round.destination.clues[winner.levelIndex].points
        // The phase first: the answer's timer belongs to it (`TIMER_SYNC`, `timers[]`).
        phase = .pausedForBrake
        self.round?.clueLog.append(ClueSpan(at: now, levelIndex: shown, state: .brake))
        let timer = arm(.brakeAnswer, durationMs: Int64(settings.brakeAnswerSeconds) * 1000, now: now, into: &out)
        brake = BrakeState(ownerId: winner.playerId, levelPoints: levelPoints, timerId: timer.id)
        out.everyone(
            .brakeAccepted(
                BrakeAccepted(
                    brakeOwnerPlayerId: winner.playerId,
                    playerName: players.first { $0.id == winner.playerId }?.name ?? "", levelPoints: levelPoints,
                    lockedPlayersCount: round.locks.count, deadlineServerMs: timer.startAt + timer.durationMs,
                    judgedAtServerMs: winner.judgedAt, compensatedMs: winner.arrivedAt - winner.judgedAt,
                    decidedAfterMs: now - arbitration.firstArrivalAt)))
        for pull in arbitration.pulls where pull.playerId != winner.playerId {
            out.send(.brakeRejected(BrakeRejected(reason: .beaten)), to: .participant(pull.playerId))
        }
        out.room(.audioStop(AudioStop()))
        out.room(.sfxPlay(SfxPlay(sfxId: "brake", startAtServerMs: now)))
    }

    /// The clue (`levelIndex`) a pull by `player` counts on, or why it is refused. At most one pull
    /// counts per cooldown; refused pulls count too, so hammering the button does not get through faster.
    ///
    /// The level is the one the player's screen showed at the judged time: what the box showed
    /// `screenDelayMs` before. A client that says it showed a later clue gets that one (fewer
    /// points never rewards a wrong claim); one that says an earlier clue than the box can confirm
    /// is refused, as is a pull whose screen showed a brake or a pause.
    func judgedLevel(
        of player: ParticipantID, claimed levelPoints: Int?, judgedAt: ServerTime, timing: PullTiming?,
        now: ServerTime
    ) -> Result<Int, BrakeRejection> {
        if let last = lastBrakePull[player], now - last < limits.brakeCooldownMs { return .failure(.rateLimited) }
        switch phase {
        case .clueLevel:
            if pausedSince != nil { return .failure(.alreadyPaused) }
        case .pausedForBrake:
            // A pull that names a clue that has gone is refused for that, as in any phase.
            if let levelPoints, levelPoints != round?.levelPoints { return .failure(.notAllowed) }
            return .failure(.alreadyPaused)
        case .lobby, .preparingRound, .roundIntro, .revealDestination, .followupQuestion, .scoreboard, .finalResults,
            .roundEnd:
            return .failure(.notAllowed)
        }
        guard let round, let current = round.levelIndex else { return .failure(.notAllowed) }
        if round.hasLocked(player) { return .failure(.alreadyAnswered) }
        // The screen showed the intro: no clue to pull on yet.
        let seen = judgedAt - (timing?.screenDelayMs ?? 0)
        guard let shown = round.clueLog.lastIndex(where: { $0.at <= seen }) else { return .failure(.notAllowed) }
        // Every span since must have been open: a brake or a pause in between came first.
        for span in round.clueLog[shown...] where span.state != .open {
            return .failure(span.state == .brake ? .beaten : .alreadyPaused)
        }
        var level = round.clueLog[shown].levelIndex
        if let levelPoints {
            guard let claimed = round.destination.clues.firstIndex(where: { $0.points == levelPoints }),
                claimed >= level, claimed <= current
            else { return .failure(.notAllowed) }
            level = claimed
        }
        if round.lapsedBrakes[player] == level { return .failure(.notAllowed) }
        return .success(level)
    }

    mutating func brakeAnswer(
        _ raw: String, by player: ParticipantID, now: ServerTime, into out: inout EffectList
    ) throws(GameError) {
        guard phase == .pausedForBrake, let brake else { throw .invalidPhase("No brake is waiting for an answer") }
        guard brake.ownerId == player else { throw .forbidden("Only the player who pulled the brake may answer") }
        // Locking moves the game to the next clue, which a paused game must not do; the brake's
        // deadline is frozen too, so the answer waits for HOST_RESUME.
        guard pausedSince == nil else { throw .invalidPhase("The game is paused; answer when it resumes") }
        let text = try validAnswer(raw)
        round?.locks.append(
            LockedAnswer(playerId: player, levelPoints: brake.levelPoints, answerText: text, lockedAt: now))
        let locked = BrakeAnswerLocked(playerId: player, lockedAtLevelPoints: brake.levelPoints, answerText: nil)
        var hostCopy = locked
        hostCopy.answerText = text
        out.send(.brakeAnswerLocked(hostCopy), to: .host)
        out.send(.brakeAnswerLocked(locked), to: .tvAndPlayers)
        out.room(.sfxPlay(SfxPlay(sfxId: "lock_in", startAtServerMs: now)))
        advanceLevel(now: now, into: &out)
    }

    /// The brake ends without an answer (timeout, owner left): the same level goes on, its timer too.
    mutating func releaseBrake(now: ServerTime, into out: inout EffectList) {
        guard let brake else { return }
        self.brake = nil
        timers.removeAll { $0.id == brake.timerId }
        phase = .clueLevel
        if let level = round?.levelIndex { round?.clueLog.append(ClueSpan(at: now, levelIndex: level, state: .open)) }
        for index in timers.indices where timers[index].purpose == .clue {
            if timers[index].release(.brake, at: now) { out.everyone(.timerSync(timers[index].view)) }
        }
    }

    func validAnswer(_ raw: String) throws(GameError) -> String {
        let text = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { throw .invalidPayload("answerText must not be empty") }
        guard text.count <= limits.answerMaxLength else {
            throw .invalidPayload("answerText has at most \(limits.answerMaxLength) characters")
        }
        guard !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw .invalidPayload("answerText must not contain control characters")
        }
        return text
    }
}

/// A refused pull's reason, as the failure of `Game.judgedLevel`.
extension BrakeRejection: Error {}
