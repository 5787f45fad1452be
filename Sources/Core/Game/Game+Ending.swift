/// The scoreboard between destinations, the finale, restarting and ending.
extension Game {
    mutating func showScoreboard(now: ServerTime, into out: inout EffectList) {
        leavePhase()
        phase = .scoreboard
        stopMusic(fadeOutMs: 800, into: &out)
        out.everyone(.scoreboardUpdate(ScoreboardUpdate(standings: standings)))
        if settings.autoAdvance {
            arm(.scoreboard, durationMs: pacing.scoreboardMs, now: now, into: &out)
        }
    }

    /// FINAL_RESULTS, on the blueprint's timeline (section 12.7): sting at t0, drumroll at 0.8 s,
    /// the winner with fanfare and confetti at 3.2 s, the finale bed under the standings from 5.5 s;
    /// ROUND_END after `finaleMs`.
    mutating func showFinale(now: ServerTime, into out: inout EffectList) {
        leavePhase()
        phase = .finalResults
        let full = standings
        let best = full.first?.points
        let winners = full.filter { $0.points == best }.map(\.playerId)
        let results = FinalResults(
            winnerPlayerId: winners.first, isTie: winners.count > 1, tieWinners: winners.count > 1 ? winners : [],
            standingsTop: Array(full.prefix(3)), standingsFull: full)
        finalResults = results
        stopMusic(fadeOutMs: 600, into: &out)
        finaleCues(elapsed: 0, now: now, into: &out)
        setMusic("finale", now: now + Self.finaleBedDelayMs, into: &out)
        out.everyone(.finalResultsPresent(results))
        if settings.finaleMs > 0 {
            arm(.finale, durationMs: Int64(settings.finaleMs), now: now, into: &out)
        } else {
            endRound()
        }
    }

    /// The finale's cues from `elapsed` into it on: those ahead keep their place on the timeline, and
    /// the one under way when a pause cut it starts again at once (a resume: the pause's
    /// AUDIO_STOP called them all off). Each cue lasts until the next one begins; the fanfare and
    /// confetti until the bed.
    func finaleCues(elapsed: Int64, now: ServerTime, into out: inout EffectList) {
        let steps: [(at: Int64, until: Int64, sfxId: String)] = [
            (0, 800, "sting_build"), (800, 3_200, "drumroll"), (3_200, Self.finaleBedDelayMs, "winner_fanfare"),
        ]
        for step in steps where elapsed < step.until {
            let startAt = now + max(0, step.at - elapsed)
            out.room(.sfxPlay(SfxPlay(sfxId: step.sfxId, startAtServerMs: startAt)))
            if step.sfxId == "winner_fanfare" {
                out.room(
                    .uiEffectTrigger(
                        UIEffectTrigger(
                            effectId: "confetti", intensity: "high", durationMs: 2_500, startAtServerMs: startAt)))
            }
        }
    }

    mutating func endRound() {
        leavePhase()
        phase = .roundEnd
    }

    /// HOST_RESTART: back to the lobby with the same players, all at 0 points.
    mutating func restart(now: ServerTime, into out: inout EffectList) throws(GameError) {
        guard phase == .finalResults || phase == .roundEnd else {
            throw .invalidPhase("Restart is possible once the finale has started")
        }
        leavePhase()
        pausedSince = nil
        phase = .lobby
        plan = []
        round = nil
        finalResults = nil
        departed = []
        lastBrakePull = [:]
        for index in players.indices { players[index].points = 0 }
        stopMusic(fadeOutMs: 300, into: &out)
        // The finale's sting, drumroll, fanfare and confetti may still be ahead: they are called off.
        out.room(.audioStop(AudioStop()))
        out.everyone(.lobbyUpdated(lobby(at: now)))
    }

    mutating func end(reason: String, into out: inout EffectList) {
        leavePhase()
        pausedSince = nil
        endedReason = reason
        stopMusic(fadeOutMs: 300, into: &out)
        out.room(.audioStop(AudioStop()))
        out.everyone(.sessionEnded(SessionEnded(reason: reason)))
        out.append(.ended(reason: reason))
    }
}
