/// Each recipient's view of the game. The secrecy rules of the contract live here and only here:
/// before a round's reveal, TV and players get neither the destination nor locked answer texts; before
/// a followup's results, not its answer. The host gets everything.
extension Game {
    public func projection(for role: Role, participant: ParticipantID?, now: ServerTime) -> Projection {
        let isHost = role == .host
        let current = roundInPlay
        let revealed = isHost || current?.revealed == true

        var projection = Projection(
            version: version, phase: phase, paused: pausedSince != nil, joinCode: joinCode, joinUrl: joinUrl,
            settings: settings, hasHost: hasHost(at: now), hasTv: hasTv, captainPlayerId: captainId,
            players: players.map(view(of:)),
            round: nil, journey: [],
            sound: Projection.Sound(
                tvPage: soundOutputs.tvPage, boxMuted: soundOutputs.boxMuted, boxOutput: true, musicTrackId: musicTrack,
                musicStartAtServerMs: musicStartsAt, musicGainDb: musicGainDb),
            clue: nil, brake: nil, lockedAnswers: [], followup: nil, scoreboard: standings,
            timers: timers.map { $0.view(at: now) }, finalResults: nil, you: nil, endedReason: endedReason)

        if let current {
            let destination = current.destination
            projection.round = Projection.Round(
                index: current.index + 1, total: plan.count,
                destination: revealed
                    ? Projection.DestinationView(
                        name: destination.name, country: destination.country,
                        aliases: isHost ? destination.aliases : nil, sources: isHost ? destination.sources : nil,
                        revealText: destination.revealText, lat: destination.lat, lon: destination.lon,
                        banter: banterLine(round: current.index))
                    : nil,
                results: current.results)
            let shown = current.revealed ? current.index + 1 : current.index
            projection.journey = plan.prefix(shown).map {
                Projection.Stop(name: $0.name, country: $0.country, lat: $0.lat, lon: $0.lon)
            }
            projection.lockedAnswers = current.locks.map {
                Projection.LockedAnswer(
                    playerId: $0.playerId, lockedAtLevelPoints: $0.levelPoints,
                    answerText: revealed ? $0.answerText : nil)
            }
            if phase == .clueLevel || phase == .pausedForBrake, let levelIndex = current.levelIndex {
                let clue = destination.clues[levelIndex]
                projection.clue = Projection.Clue(
                    levelPoints: clue.points, clueText: clue.text, levelIndex: levelIndex + 1,
                    totalLevels: destination.clues.count)
            }
            if phase == .followupQuestion, let followup = current.followup {
                projection.followup = Projection.Followup(
                    index: followup.index, total: followup.total, questionText: followup.question.question,
                    options: followup.question.options,
                    timer: timers.first { $0.id == followup.timer.timerId }?.view(at: now) ?? followup.timer,
                    isOpen: followup.isOpen,
                    correctAnswer: isHost || followup.results != nil ? followup.question.answer : nil,
                    answeredCount: followup.answers.count,
                    answers: isHost
                        ? players.compactMap { player in
                            followup.answers[player.id].map {
                                Projection.FollowupAnswer(playerId: player.id, answerText: $0)
                            }
                        } : nil,
                    results: followup.results?.results)
            }
        }
        if let brake {
            let deadline = timers.first { $0.id == brake.timerId }.map { $0.startAt + $0.durationMs } ?? now
            projection.brake = Projection.Brake(
                brakeOwnerPlayerId: brake.ownerId, levelPoints: brake.levelPoints, deadlineServerMs: deadline)
        }
        if phase == .finalResults || phase == .roundEnd {
            projection.finalResults = finalResults
        }
        if role == .player, let participant {
            projection.you = you(participant)
        }
        return projection
    }

    /// The one part of a player's projection that is theirs alone; everything else is the same for
    /// every player, so the box can encode that once per change rather than once per player.
    public func you(_ participant: ParticipantID) -> Projection.You? {
        guard let player = players.first(where: { $0.id == participant }) else { return nil }
        let current = roundInPlay
        let followup = phase == .followupQuestion ? current?.followup : nil
        return Projection.You(
            playerId: player.id, name: player.name, points: player.points,
            hasLockedAnswer: current?.hasLocked(player.id) ?? false,
            rank: 1 + players.filter { $0.points > player.points }.count,
            followupAnswer: followup?.answers[player.id])
    }

    /// The round being played; in the lobby the last game's round is history, not shown to anyone.
    private var roundInPlay: RoundState? { phase != .lobby ? round : nil }
}
