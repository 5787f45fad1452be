/// Arming, firing, pausing and resuming the game's timers.
extension Game {
    /// Starts a timer for the current phase and tells every client (TIMER_SYNC).
    @discardableResult
    mutating func arm(
        _ purpose: GameTimer.Purpose, durationMs: Int64, now: ServerTime, into out: inout EffectList
    ) -> GameTimer {
        timerCount += 1
        var timer = GameTimer(
            id: "t\(timerCount)", purpose: purpose, phase: phase, startAt: now, durationMs: durationMs)
        if pausedSince != nil { timer.hold(.hostPause, at: now) }
        timers.append(timer)
        out.everyone(.timerSync(timer.view))
        return timer
    }

    /// Every phase change drops the old phase's timers and any brake.
    mutating func leavePhase() {
        timers.removeAll()
        brake = nil
        arbitration = nil
    }

    mutating func timerFired(_ timerId: String, now: ServerTime, into out: inout EffectList) throws(GameError) {
        if timerId == Arbitration.timerId {
            guard let arbitration, now >= arbitration.decideAt else { throw .invalidPhase("No brake decision is due") }
            decideBrake(now: now, into: &out)
            return
        }
        guard let timer = timers.first(where: { $0.id == timerId }) else {
            throw .invalidPhase("Timer \(timerId) is not running")
        }
        guard let deadline = timer.deadline, now >= deadline else { throw .invalidPhase("Timer \(timerId) is not due") }
        switch timer.purpose {
        case .intro:
            showClue(0, now: now, into: &out)
        case .clue:
            advanceLevel(now: now, into: &out)
        case .brakeAnswer:
            if limits.lapsedBrakeWaitsForNextClue, let brake { round?.lapsedBrakes[brake.ownerId] = brake.levelIndex }
            releaseBrake(now: now, into: &out)
        case .followup:
            closeFollowup(now: now, into: &out)
        case .followupResults, .reveal, .scoreboard:
            try next(now: now, into: &out)
        case .finale:
            endRound()
        }
    }

    mutating func pause(now: ServerTime, into out: inout EffectList) throws(GameError) {
        guard pausedSince == nil else { throw .invalidPhase("The game is already paused") }
        switch phase {
        case .roundIntro, .clueLevel, .pausedForBrake, .revealDestination, .followupQuestion, .scoreboard,
            .finalResults:
            break
        case .lobby, .preparingRound, .roundEnd:
            throw .invalidPhase("Nothing to pause in \(phase.rawValue)")
        }
        pausedSince = now
        for index in timers.indices { timers[index].hold(.hostPause, at: now) }
        if phase == .clueLevel, let level = round?.levelIndex {
            round?.clueLog.append(ClueSpan(at: now, levelIndex: level, state: .paused))
        }
        out.room(.audioStop(AudioStop()))
        if musicTrack != nil { out.room(.musicStop(MusicStop(fadeOutMs: 300))) }
    }

    mutating func resume(now: ServerTime, into out: inout EffectList) throws(GameError) {
        guard pausedSince != nil else { throw .invalidPhase("The game is not paused") }
        pausedSince = nil
        if phase == .clueLevel, let level = round?.levelIndex {
            round?.clueLog.append(ClueSpan(at: now, levelIndex: level, state: .open))
        }
        for index in timers.indices where timers[index].release(.hostPause, at: now) {
            out.everyone(.timerSync(timers[index].view))
        }
        var musicAt = now
        if phase == .finalResults, let finale = timers.first(where: { $0.purpose == .finale }) {
            // The finale goes on from where the pause caught it: the winner still gets the
            // fanfare, and the bed comes in after it.
            let elapsed = now - finale.startAt
            finaleCues(elapsed: elapsed, now: now, into: &out)
            musicAt = now + max(0, Self.finaleBedDelayMs - elapsed)
        }
        if let musicTrack {
            musicStartsAt = musicAt
            out.room(
                .musicSet(MusicSet(trackId: musicTrack, mode: "loop", startAtServerMs: musicAt, gainDb: musicGainDb)))
        }
    }
}
