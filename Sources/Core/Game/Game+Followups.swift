/// Followup questions: everyone answers before the server's deadline; the last answer counts.
extension Game {
    mutating func startFollowup(_ index: Int, now: ServerTime, into out: inout EffectList) {
        guard let current = round else { return }
        leavePhase()
        phase = .followupQuestion
        let question = current.destination.followups[index - 1]
        let timer = arm(.followup, durationMs: Int64(settings.followupSeconds) * 1000, now: now, into: &out)
        round?.followup = FollowupState(
            index: index, total: current.followupCount, question: question, timer: timer.view)
        setMusic("followup", now: now, into: &out)
        out.everyone(
            .followupPresent(
                FollowupPresent(
                    index: index, total: current.followupCount, questionText: question.question,
                    options: question.options, timer: timer.view)))
        out.room(
            .audioPlay(
                AudioPlay(
                    clipId: AudioClip.followup(round: current.index, index: index), kind: .followup,
                    startAtServerMs: now))
        )
    }

    mutating func followupAnswer(index: Int, text raw: String, by player: ParticipantID) throws(GameError) {
        guard phase == .followupQuestion, let followup = round?.followup, followup.isOpen, followup.index == index
        else {
            throw .invalidPhase("Followup \(index) is not open for answers")
        }
        let text = try validAnswer(raw)
        round?.followup?.answers[player] = text
    }

    /// FOLLOWUP_LOCKED then FOLLOWUP_RESULTS: answers are marked, +2 for each correct one.
    mutating func closeFollowup(now: ServerTime, into out: inout EffectList) {
        guard let followup = round?.followup, followup.isOpen else { return }
        leavePhase()
        let key = AnswerKey.followup(followup.question)
        let results = players.map { player in
            let answer = followup.answers[player.id]
            let isCorrect = answer.map(key.accepts) ?? false
            return FollowupResult(
                playerId: player.id, answerText: answer, isCorrect: isCorrect,
                pointsAwarded: isCorrect ? Self.followupPoints : 0)
        }
        award(results.map { ($0.playerId, $0.pointsAwarded) })
        let summary = FollowupResults(index: followup.index, correctAnswer: followup.question.answer, results: results)
        round?.followup?.isOpen = false
        round?.followup?.results = summary
        out.everyone(.followupLocked(FollowupLocked(index: followup.index)))
        out.everyone(.followupResults(summary))
        out.everyone(.scoreboardUpdate(ScoreboardUpdate(standings: standings)))
        out.room(.sfxPlay(SfxPlay(sfxId: "lock_in", startAtServerMs: now)))
        if settings.autoAdvance {
            arm(.followupResults, durationMs: pacing.followupResultsMs, now: now, into: &out)
        }
    }
}
