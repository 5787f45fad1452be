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
        // A window whose time has come is decided before this pull, which then finds the brake taken:
        // it does not join a window that should have closed (the decision's timer may not have
        // fired yet in a rush).
        let decided = arbitration.map { $0.decideAt <= now } ?? false
        if decided { decideBrake(now: now, into: &out) }
        var judgedAt = timing?.judgedAt ?? now
        let levelIndex: Int
        switch judgedLevel(of: player, claimed: levelPoints, judgedAt: judgedAt, timing: timing, now: now) {
        case .failure(let reason):
            if reason != .rateLimited { lastBrakePull[player] = now }
            if !decided { out.changesGame = false }
            out.send(.brakeRejected(BrakeRejected(reason: reason)), to: .participant(player))
            return
        case .success(let judged):
            (levelIndex, judgedAt) = judged
        }
        lastBrakePull[player] = now
        let pull = Arbitration.Pull(playerId: player, arrivedAt: now, judgedAt: judgedAt, levelIndex: levelIndex)
        var arbitration: Arbitration
        if let pending = self.arbitration {
            arbitration = pending
            arbitration.pulls.append(pull)
            arbitration.windowMs = max(arbitration.windowMs, timing?.windowMs ?? 0)
        } else {
            // The clue's countdown stops at the first pull; the brake that wins keeps it stopped.
            for index in timers.indices where timers[index].purpose == .clue {
                timers[index].hold(.brake, at: now)
            }
            arbitration = Arbitration(
                firstArrivalAt: now, decideAt: now, windowMs: timing?.windowMs ?? 0, pulls: [pull])
        }
        arbitration.scheduleDecision(now: now)
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
        guard let winner = arbitration.winner, let round, let shown = round.levelIndex else {
            releaseClueTimers(now: now, into: &out)
            return
        }
        let levelPoints = round.destination.clues[winner.levelIndex].points
        // The phase first: the answer's timer belongs to it (`TIMER_SYNC`, `timers[]`).
        phase = .pausedForBrake
        self.round?.clueLog.append(ClueSpan(at: now, levelIndex: shown, state: .brake))
        let timer = arm(.brakeAnswer, durationMs: Int64(settings.brakeAnswerSeconds) * 1000, now: now, into: &out)
        brake = BrakeState(
            ownerId: winner.playerId, levelPoints: levelPoints, levelIndex: winner.levelIndex, timerId: timer.id)
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
        out.room(
            .uiEffectTrigger(
                UIEffectTrigger(effectId: "flash", intensity: "high", durationMs: 500, startAtServerMs: now)))
        out.room(
            .uiEffectTrigger(
                UIEffectTrigger(
                    effectId: "spotlight", intensity: "high", durationMs: 2_500, startAtServerMs: now,
                    playerId: winner.playerId)))
    }

    /// A player who goes (kicked, left) takes their pulls out of the window, which goes on for the
    /// others; without any left, the clue's countdown runs on as if nobody had pulled.
    mutating func withdrawPulls(of player: ParticipantID, now: ServerTime, into out: inout EffectList) {
        guard var arbitration, arbitration.pulls.contains(where: { $0.playerId == player }) else { return }
        arbitration.pulls.removeAll { $0.playerId == player }
        if arbitration.pulls.isEmpty {
            self.arbitration = nil
            releaseClueTimers(now: now, into: &out)
        } else {
            arbitration.scheduleDecision(now: now)
            self.arbitration = arbitration
        }
    }

    /// The clue's countdown runs again after a brake or a window, with the time it had left.
    private mutating func releaseClueTimers(now: ServerTime, into out: inout EffectList) {
        for index in timers.indices where timers[index].purpose == .clue {
            if timers[index].release(.brake, at: now) { out.everyone(.timerSync(timers[index].view)) }
        }
    }

    /// The clue (`levelIndex`) a pull by `player` counts on, or why it is refused. At most one pull
    /// counts per cooldown; refused pulls count too, so hammering the button does not get through faster.
    ///
    /// The level is the one the player's screen showed at the judged time: what the box showed the
    /// link's typical delay (`screenDelayMs`) before. A client that says it showed a later clue gets
    /// that one; one that says an earlier clue gets it if its screen could still have shown it, the
    /// link's longest delay (`lookbackMs`) before, and otherwise the typical one (more points are
    /// never taken on a claim alone). A pull judged at its arrival that names another clue than the
    /// one showing is refused, as in v1; so is a pull whose screen showed a brake or a pause.
    func judgedLevel(
        of player: ParticipantID, claimed levelPoints: Int?, judgedAt: ServerTime, timing: PullTiming?,
        now: ServerTime
    ) -> Result<(levelIndex: Int, judgedAt: ServerTime), BrakeRejection> {
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
        let log = round.clueLog
        // What the screen showed with the link's typical delay; if that was the intro, a brake or a
        // pause, then what it showed had the message that changed it come as fast as the link allows
        // (a later clue: fewer points, never more), before the pull is refused for it.
        /// Whether the screen showed a clue, open for pulls ever since (no brake or pause after it).
        let openSince = { (index: Int?) in index.map { Self.closed(log, since: $0) == nil } ?? false }
        var seen = log.lastIndex { $0.at <= judgedAt - (timing?.screenDelayMs ?? 0) }
        if !openSince(seen), let fastest = log.lastIndex(where: { $0.at <= judgedAt - (timing?.fastestMs ?? 0) }),
            openSince(fastest)
        {
            seen = fastest
        }
        var judgedAt = judgedAt
        if !openSince(seen), let latest = log.indices.last, openSince(latest),
            levelPoints == round.destination.clues[current].points
        {
            // The phone says it showed the clue showing now, which it cannot have seen before the box
            // showed it: the press was after that, whatever a clock a few milliseconds off says.
            seen = latest
            judgedAt = max(judgedAt, log[latest].at)
        }
        // The screen showed the intro: no clue to pull on yet.
        guard let shown = seen else { return .failure(.notAllowed) }
        if let closed = Self.closed(log, since: shown) { return .failure(closed) }
        var level = log[shown].levelIndex
        if let levelPoints {
            let claimed = round.destination.clues.firstIndex { $0.points == levelPoints }
            let lookback = timing?.lookbackMs ?? 0
            if lookback == 0 {
                guard claimed == level else { return .failure(.notAllowed) }
            } else if let claimed, claimed > level, claimed <= current {
                level = claimed
            } else if let claimed, claimed < level {
                // Shown within the link's longest delay, and no brake or pause since.
                let earliest = log.lastIndex { $0.at <= judgedAt - lookback } ?? 0
                let plausible = log.indices.contains { index in
                    index >= earliest && index < shown && log[index].levelIndex == claimed
                        && log[index].state == .open && Self.closed(log, since: index) == nil
                }
                if plausible { level = claimed }
            }
        }
        if round.lapsedBrakes[player] == level { return .failure(.notAllowed) }
        return .success((level, judgedAt))
    }

    /// Why a pull whose screen showed `log[index]` comes too late: a brake (another player's, judged
    /// earlier) or a pause since.
    private static func closed(_ log: [ClueSpan], since index: Int) -> BrakeRejection? {
        for span in log[index...] where span.state != .open { return span.state == .brake ? .beaten : .alreadyPaused }
        return nil
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
        // From the brake's clue: one won on clue 10 just after the room saw 8 opens 8 again, in full.
        advanceLevel(after: brake.levelIndex, now: now, into: &out)
    }

    /// The brake ends without an answer (timeout, owner left): the same level goes on, its timer too.
    mutating func releaseBrake(now: ServerTime, into out: inout EffectList) {
        guard let brake else { return }
        self.brake = nil
        timers.removeAll { $0.id == brake.timerId }
        phase = .clueLevel
        if let level = round?.levelIndex { round?.clueLog.append(ClueSpan(at: now, levelIndex: level, state: .open)) }
        releaseClueTimers(now: now, into: &out)
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
