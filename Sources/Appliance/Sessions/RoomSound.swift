import Core

/// A session's sound as its messages carry it: the voice clips that AUDIO_PLAY names, and the
/// box's own speaker, which plays every sound event at its time.
struct RoomSound {
    let sessionId: String
    let packs: PackLibrary
    let speaker: Speaker?
    /// The room's clock offset, which the speaker takes off the events' times.
    let clockOffset: Int64
    /// Clip lengths already read, by file (`duration`).
    private var durations: [String: Int64] = [:]
    /// When the reveal's line ends, once it has gone out with its length: the banter follows it.
    private var revealEnds: Int64?
    /// Whether the speaker was last told to be silent for this session (`route`).
    private var silenced = false
    /// The pause between the reveal's line and the banter after it.
    static let banterGapMs: Int64 = 400

    init(sessionId: String, packs: PackLibrary, speaker: Speaker?, clockOffset: Int64) {
        self.sessionId = sessionId
        self.packs = packs
        self.speaker = speaker
        self.clockOffset = clockOffset
    }

    /// The pack file of a clip that has been played in `game`.
    func clipPath(_ clipId: String, in game: Game) -> String? {
        game.packClip(for: clipId).flatMap { packs.clipPath(packId: game.settings.packId, clipId: $0) }
    }

    /// `event` as it goes out (an AUDIO_PLAY with its clip's address and length), started on the
    /// speaker if it is a sound; nil for a banter line whose clip this box does not have (a pack's
    /// voice rendered before banter was, or still rendering): nobody is told to play nothing.
    mutating func prepare(_ event: ServerEvent, in game: Game) -> ServerEvent? {
        var event = event
        if case .audioPlay(var play) = event {
            play.url = "/v1/sessions/\(sessionId)/assets/\(play.clipId)"
            play.durationMs = duration(of: play.clipId, in: game)
            if play.kind == .banter, play.durationMs == nil { return nil }
            switch play.kind {
            case .reveal: revealEnds = play.durationMs.map { play.startAtServerMs + $0 }
            case .banter:
                if let revealEnds { play.startAtServerMs = max(play.startAtServerMs, revealEnds + Self.banterGapMs) }
            default: break
            }
            event = .audioPlay(play)
        }
        guard let speaker, event.isSound, !game.boxSilenced else { return event }
        let packId = game.settings.packId
        var clip: String?
        if case .audioPlay(let play) = event {
            clip = clipPath(play.clipId, in: game)
            if play.kind == .intro {
                // A round begins: its clips are read while the intro plays.
                speaker.prepare(game.currentRoundPackClips.compactMap { packs.clipPath(packId: packId, clipId: $0) })
            }
        }
        speaker.play(event, session: sessionId, packId: packId, clip: clip, clockOffset: clockOffset)
        return event
    }

    /// Brings the box's speaker in line with `game.boxSilenced` after any change (a mute, the TV page
    /// switched on or off, the TV coming or going): gone silent, what it plays for this session
    /// stops; back, the music bed under way comes back.
    mutating func route(_ game: Game, now: Int64) {
        guard game.boxSilenced != silenced else { return }
        silenced = game.boxSilenced
        guard let speaker else { return }
        let packId = game.settings.packId
        if silenced {
            speaker.play(
                .audioStop(AudioStop()), session: sessionId, packId: packId, clip: nil, clockOffset: clockOffset)
            speaker.play(
                .musicStop(MusicStop(fadeOutMs: 300)), session: sessionId, packId: packId, clip: nil,
                clockOffset: clockOffset)
        } else if let track = game.musicTrack, game.pausedSince == nil {
            // A bed still to come (the finale's, after the fanfare) keeps its time.
            let startAt = max(now, game.musicStartsAt ?? now)
            let bed = MusicSet(trackId: track, mode: "loop", startAtServerMs: startAt, gainDb: game.musicGainDb)
            speaker.play(.musicSet(bed), session: sessionId, packId: packId, clip: nil, clockOffset: clockOffset)
        }
    }

    /// A clip's length for its AUDIO_PLAY, read from its file's header once (the intro plays every
    /// round). Kept by file, since a clip's name (`r1-clue-10`) means another destination's line in
    /// the next game; a file not there yet (voices rendered while the box runs) is looked for again.
    private mutating func duration(of clipId: String, in game: Game) -> Int64? {
        guard let path = clipPath(clipId, in: game) else { return nil }
        if let known = durations[path] { return known }
        let duration = WAVDuration.milliseconds(ofFileAt: path)
        durations[path] = duration
        return duration
    }
}
