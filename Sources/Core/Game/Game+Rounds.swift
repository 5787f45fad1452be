/// Starting the game, the intro, the clue levels and the reveal.
extension Game {
    mutating func start(_ destinations: [Destination], now: ServerTime, into out: inout EffectList) throws(GameError) {
        guard phase == .lobby else { throw .invalidPhase("The game has already started") }
        guard !players.isEmpty else { throw .invalidPhase("At least one player must join before the game starts") }
        guard (1...10).contains(destinations.count) else {
            throw .invalidPayload("A game has 1–10 destinations, not \(destinations.count)")
        }
        guard destinations.allSatisfy({ $0.clues.map(\.points) == PackValidator.cluePoints }) else {
            throw .invalidPayload("Every destination needs five clues worth 10, 8, 6, 4 and 2 points")
        }
        plan = destinations
        gamesStarted += 1
        departed = []
        finalResults = nil
        for index in players.indices { players[index].points = 0 }
        beginRound(0, now: now, into: &out)
    }

    /// PREPARING_ROUND → ROUND_INTRO. The content is already on the box, so preparing takes no time:
    /// the version moves past PREPARING_ROUND within the same command.
    mutating func beginRound(_ index: Int, now: ServerTime, into out: inout EffectList) {
        leavePhase()
        phase = .preparingRound
        version += 1
        let destination = plan[index]
        round = RoundState(
            index: index, destination: destination,
            followupCount: min(settings.followupsPerDestination, destination.followups.count))
        phase = .roundIntro
        setMusic("travel", now: now, into: &out)
        out.room(.audioPlay(AudioPlay(clipId: AudioClip.intro, kind: .intro, startAtServerMs: now)))
        if settings.introMs > 0 {
            arm(.intro, durationMs: Int64(settings.introMs), now: now, into: &out)
        } else {
            showClue(0, now: now, into: &out)
        }
    }

    mutating func showClue(_ levelIndex: Int, now: ServerTime, into out: inout EffectList) {
        guard let current = round else { return }
        let destination = current.destination
        leavePhase()
        phase = .clueLevel
        round?.levelIndex = levelIndex
        round?.clueLog.append(ClueSpan(at: now, levelIndex: levelIndex, state: .open))
        let clue = destination.clues[levelIndex]
        out.everyone(
            .cluePresent(
                CluePresent(
                    levelPoints: clue.points, clueText: clue.text, levelIndex: levelIndex + 1,
                    totalLevels: destination.clues.count)))
        out.room(
            .audioPlay(
                AudioPlay(
                    clipId: AudioClip.clue(round: current.index, points: clue.points), kind: .clue, startAtServerMs: now
                )))
        if settings.autoAdvance {
            arm(.clue, durationMs: pacing.clueMs(for: clue.text), now: now, into: &out)
        }
    }

    mutating func nextClue(now: ServerTime, into out: inout EffectList) throws(GameError) {
        switch phase {
        case .roundIntro:
            showClue(0, now: now, into: &out)
        case .clueLevel, .pausedForBrake:
            advanceLevel(now: now, into: &out)
        case .lobby, .preparingRound, .revealDestination, .followupQuestion, .scoreboard, .finalResults, .roundEnd:
            throw .invalidPhase("There is no next clue in \(phase.rawValue)")
        }
    }

    /// To the next clue, or the reveal after the 2-point clue. An unanswered brake is released.
    mutating func advanceLevel(after level: Int? = nil, now: ServerTime, into out: inout EffectList) {
        let current = level ?? round?.levelIndex ?? -1
        if let destination = round?.destination, current + 1 < destination.clues.count {
            showClue(current + 1, now: now, into: &out)
        } else {
            reveal(now: now, into: &out)
        }
    }

    /// HOST_NEXT: whatever comes next from here.
    mutating func next(now: ServerTime, into out: inout EffectList) throws(GameError) {
        switch phase {
        case .roundIntro, .clueLevel, .pausedForBrake:
            try nextClue(now: now, into: &out)
        case .revealDestination:
            if let round, round.followupCount > 0 {
                startFollowup(1, now: now, into: &out)
            } else {
                showScoreboard(now: now, into: &out)
            }
        case .followupQuestion:
            guard let round, let followup = round.followup else { return }
            if followup.isOpen {
                closeFollowup(now: now, into: &out)
            } else if followup.index < round.followupCount {
                startFollowup(followup.index + 1, now: now, into: &out)
            } else {
                showScoreboard(now: now, into: &out)
            }
        case .scoreboard:
            if let round, round.index + 1 < plan.count {
                beginRound(round.index + 1, now: now, into: &out)
            } else {
                showFinale(now: now, into: &out)
            }
        case .finalResults:
            endRound()
        case .lobby:
            throw .invalidPhase("Start the game with HOST_START_GAME")
        case .preparingRound, .roundEnd:
            throw .invalidPhase("Nothing comes next in \(phase.rawValue)")
        }
    }

    /// REVEAL_DESTINATION: the locked answers are marked and scored.
    mutating func reveal(now: ServerTime, into out: inout EffectList) {
        guard var current = round else { return }
        leavePhase()
        phase = .revealDestination
        let destination = current.destination
        let key = AnswerKey.destination(destination)
        let results = current.locks.map { lock in
            let isCorrect = key.accepts(lock.answerText)
            return DestinationResult(
                playerId: lock.playerId, answerText: lock.answerText, isCorrect: isCorrect,
                pointsAwarded: isCorrect ? lock.levelPoints : 0, lockedAtLevelPoints: lock.levelPoints)
        }
        award(results.map { ($0.playerId, $0.pointsAwarded) })
        current.revealed = true
        current.results = results
        round = current
        stopMusic(fadeOutMs: 600, into: &out)
        out.room(.sfxPlay(SfxPlay(sfxId: "reveal_sting", startAtServerMs: now)))
        out.everyone(
            .destinationReveal(
                DestinationReveal(
                    destinationName: destination.name, country: destination.country, revealText: destination.revealText)
            ))
        out.everyone(.destinationResults(DestinationResults(results: results)))
        out.everyone(.scoreboardUpdate(ScoreboardUpdate(standings: standings)))
        out.room(
            .uiEffectTrigger(
                UIEffectTrigger(effectId: "pulse", intensity: "med", durationMs: 1_200, startAtServerMs: now)))
        out.room(
            .audioPlay(AudioPlay(clipId: AudioClip.reveal(round: current.index), kind: .reveal, startAtServerMs: now)))
        if banterLine(round: current.index) != nil {
            // After the reveal's line: the box, which knows how long that is, moves it there.
            out.room(
                .audioPlay(
                    AudioPlay(clipId: AudioClip.banter(round: current.index), kind: .banter, startAtServerMs: now)))
        }
        if settings.autoAdvance {
            let said = [destination.revealText] + [banterLine(round: current.index)].compactMap { $0 }
            arm(.reveal, durationMs: pacing.revealMs(saying: said), now: now, into: &out)
        }
    }

    mutating func award(_ awards: [(ParticipantID, Int)]) {
        for (id, points) in awards where points != 0 {
            if let index = players.firstIndex(where: { $0.id == id }) { players[index].points += points }
        }
    }

    mutating func setMusic(_ trackId: String, now: ServerTime, into out: inout EffectList) {
        guard musicTrack != trackId else { return }
        musicTrack = trackId
        musicStartsAt = now
        out.room(.musicSet(MusicSet(trackId: trackId, mode: "loop", startAtServerMs: now, gainDb: musicGainDb)))
    }

    mutating func stopMusic(fadeOutMs: Int, into out: inout EffectList) {
        guard musicTrack != nil else { return }
        musicTrack = nil
        musicStartsAt = nil
        out.room(.musicStop(MusicStop(fadeOutMs: fadeOutMs)))
    }
}
