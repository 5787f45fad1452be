import Foundation

/// The music beds and effects the box plays, composed in code when the box starts. Everything here
/// is the project's own work, so there is nothing to license from anyone else; `credits` records
/// that for every asset (blueprint 12.6).
struct SoundLibrary: Sendable {
    struct Credit: Codable, Sendable, Equatable {
        var id: String
        var kind: String
        var title: String
        var description: String
        var durationMs: Int
        var loops: Bool
        var author: String
        var licence: String
        var source: String
    }

    let sounds: [String: Sound]
    let credits: [Credit]

    private struct Piece {
        var id: String
        var kind: String
        var title: String
        var description: String
        var source: String
        var compose: @Sendable () -> Sound
    }

    private static let pieces: [Piece] = [
        Piece(
            id: "travel", kind: "music", title: "På väg",
            description:
                "Journey loop under the clues: D major, 124 bpm, 16 bars; shaker train rhythm, whistle tune, electric piano, bass.",
            source: "Sources/Appliance/Audio/Synth/TravelBed.swift", compose: TravelBed.compose),
        Piece(
            id: "followup", kind: "music", title: "Klockan tickar",
            description: "Followup loop: A minor, 100 bpm, 8 bars; clock ticks, heartbeat kick, plucked ostinato, pad.",
            source: "Sources/Appliance/Audio/Synth/FollowupBed.swift", compose: FollowupBed.compose),
        Piece(
            id: "finale", kind: "music", title: "Hemkomsten",
            description: "Bed under the final standings: C major, 92 bpm, 8 bars; pads, glockenspiel tune, claps.",
            source: "Sources/Appliance/Audio/Synth/FinaleBed.swift", compose: FinaleBed.compose),
        Piece(
            id: "brake", kind: "sfx", title: "Nödbroms",
            description: "Emergency brake: clunk, air burst, steel squeal.",
            source: "Sources/Appliance/Audio/Synth/Effects.swift", compose: Effects.brake),
        Piece(
            id: "lock_in", kind: "sfx", title: "Låst", description: "Answer locked: two glockenspiel bars.",
            source: "Sources/Appliance/Audio/Synth/Effects.swift", compose: Effects.lockIn),
        Piece(
            id: "reveal_sting", kind: "sfx", title: "Avslöjandet",
            description: "Reveal: plucked run into a brass chord, timpani and cymbal.",
            source: "Sources/Appliance/Audio/Synth/Effects.swift", compose: Effects.revealSting),
        Piece(
            id: "sting_build", kind: "sfx", title: "Och vinnaren är…", description: "Finale opening: rising sweep.",
            source: "Sources/Appliance/Audio/Synth/Effects.swift", compose: Effects.stingBuild),
        Piece(
            id: "drumroll", kind: "sfx", title: "Trumvirvel",
            description: "Snare roll growing for 2.4 s, with timpani.",
            source: "Sources/Appliance/Audio/Synth/Effects.swift", compose: Effects.drumroll),
        Piece(
            id: "winner_fanfare", kind: "sfx", title: "Vinnaren",
            description: "Winner fanfare: brass triplet into a C major chord, timpani, cymbal, glockenspiel.",
            source: "Sources/Appliance/Audio/Synth/Effects.swift", compose: Effects.winnerFanfare),
    ]

    /// Bumped whenever a piece changes, so a box never plays a stale copy from its cache.
    static let revision = "1"

    /// `credits.json`: the record of every sound, and the revision they were composed at.
    struct Catalogue: Codable, Sendable {
        var revision: String
        var sounds: [Credit]
    }

    static var ids: [String] { pieces.map(\.id) }

    /// Writes every sound as a 48 kHz stereo WAV into `folder`, with `credits.json`.
    func write(to folder: URL) throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for credit in credits {
            guard let sound = sounds[credit.id] else { continue }
            try WAVFile.write(sound, to: folder.appendingPathComponent("\(credit.id).wav"))
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        try encoder.encode(Catalogue(revision: Self.revision, sounds: credits)).write(
            to: folder.appendingPathComponent("credits.json"), options: .atomic)
    }

    /// The sounds written earlier by `write(to:)` at this revision, or nil if any is missing.
    static func read(from folder: URL) -> SoundLibrary? {
        guard let data = try? Data(contentsOf: folder.appendingPathComponent("credits.json")),
            let catalogue = try? JSONDecoder().decode(Catalogue.self, from: data), catalogue.revision == revision,
            Set(catalogue.sounds.map(\.id)) == Set(ids)
        else { return nil }
        var sounds: [String: Sound] = [:]
        for credit in catalogue.sounds {
            guard let sound = try? WAVFile.read(folder.appendingPathComponent("\(credit.id).wav")) else { return nil }
            sounds[credit.id] = Sound(interleaved: sound.samples, loops: credit.loops)
        }
        return SoundLibrary(sounds: sounds, credits: catalogue.sounds)
    }

    /// The sounds from `folder` if they are there, else composed now and stored there for next time.
    static func load(cachedIn folder: URL) -> (library: SoundLibrary, composed: Bool) {
        if let cached = read(from: folder) { return (cached, false) }
        let library = compose()
        try? library.write(to: folder)
        return (library, true)
    }

    /// Composes every piece (about a second of work in a release build).
    static func compose() -> SoundLibrary {
        var sounds: [String: Sound] = [:]
        var credits: [Credit] = []
        for piece in pieces {
            let sound = piece.compose()
            sounds[piece.id] = sound
            credits.append(
                Credit(
                    id: piece.id, kind: piece.kind, title: piece.title, description: piece.description,
                    durationMs: sound.milliseconds, loops: sound.loops, author: "Tripto box contributors",
                    licence:
                        "CC0-1.0 (composed and synthesised in code by the project; no samples or third-party material)",
                    source: piece.source))
        }
        return SoundLibrary(sounds: sounds, credits: credits)
    }

    subscript(id id: String) -> Sound? { sounds[id] }
}
