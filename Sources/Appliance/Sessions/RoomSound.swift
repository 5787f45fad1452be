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
    /// speaker if it is a sound.
    mutating func prepare(_ event: ServerEvent, in game: Game) -> ServerEvent {
        var event = event
        if case .audioPlay(var play) = event {
            play.url = "/v1/sessions/\(sessionId)/assets/\(play.clipId)"
            play.durationMs = duration(of: play.clipId, in: game)
            event = .audioPlay(play)
        }
        guard let speaker, event.isSound else { return event }
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
