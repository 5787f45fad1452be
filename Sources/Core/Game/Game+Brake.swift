import Foundation

/// The emergency brake: first pull wins, one locked answer per player per destination.
extension Game {
    /// `levelPoints`, when the client sends it, is the clue the player saw: a pull that reaches the
    /// box after that clue has gone (its owner's answer moved the game on while it travelled) is
    /// refused, not won on a clue the player never saw.
    mutating func brakePull(by player: ParticipantID, on levelPoints: Int?, now: ServerTime, into out: inout EffectList)
    {
        if let reason = brakeRejection(for: player, on: levelPoints, now: now) {
            if reason != .rateLimited { lastBrakePull[player] = now }
            out.changesGame = false
            out.send(.brakeRejected(BrakeRejected(reason: reason)), to: .participant(player))
            return
        }
        lastBrakePull[player] = now
        guard let levelPoints = round?.levelPoints else { return }
        for index in timers.indices where timers[index].purpose == .clue {
            timers[index].hold(.brake, at: now)
        }
        // The phase first: the answer's timer belongs to it (`TIMER_SYNC`, `timers[]`).
        phase = .pausedForBrake
        let timer = arm(.brakeAnswer, durationMs: Int64(settings.brakeAnswerSeconds) * 1000, now: now, into: &out)
        brake = BrakeState(ownerId: player, levelPoints: levelPoints, timerId: timer.id)
        out.everyone(
            .brakeAccepted(
                BrakeAccepted(
                    brakeOwnerPlayerId: player, playerName: players.first { $0.id == player }?.name ?? "",
                    levelPoints: levelPoints, lockedPlayersCount: round?.locks.count ?? 0,
                    deadlineServerMs: timer.startAt + timer.durationMs)))
        out.room(.audioStop(AudioStop()))
        out.room(.sfxPlay(SfxPlay(sfxId: "brake", startAtServerMs: now)))
    }

    /// Why a pull by `player` is refused now, or nil when it wins. At most one pull counts per cooldown;
    /// refused pulls count too, so hammering the button does not get through faster.
    func brakeRejection(for player: ParticipantID, on levelPoints: Int?, now: ServerTime) -> BrakeRejection? {
        if let last = lastBrakePull[player], now - last < limits.brakeCooldownMs { return .rateLimited }
        if let levelPoints, levelPoints != round?.levelPoints { return .notAllowed }
        switch phase {
        case .clueLevel:
            if pausedSince != nil { return .alreadyPaused }
            if round?.hasLocked(player) == true { return .alreadyAnswered }
            if round?.lapsedBrakes.contains(player) == true { return .notAllowed }
            return nil
        case .pausedForBrake:
            return .alreadyPaused
        case .lobby, .preparingRound, .roundIntro, .revealDestination, .followupQuestion, .scoreboard, .finalResults,
            .roundEnd:
            return .notAllowed
        }
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
