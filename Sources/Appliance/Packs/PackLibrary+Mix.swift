import Core

/// The mix: a pack made of every pack of one language that a new session may choose, offered as
/// `mix-sv` and `mix-en` once a language has two packs. It is played by the same rules as one pack:
/// what was played from it is recorded under the pack each destination comes from, so a mix and its
/// packs share one history (docs/packs.md, "The mix").
extension PackLibrary {
    struct Mix {
        var pack: Pack
        /// Where each destination comes from: its pack's id and folder.
        var sources: [String: (packId: String, folder: String)]
        /// The folder of the first pack, whose intro clip the mix plays.
        var introFolder: String

        /// The folder holding a clip: `intro`, or one named `<destination id>-…`.
        func folder(ofClip clipId: String) -> String? {
            if clipId == "intro" { return introFolder }
            return sources.filter { clipId.hasPrefix($0.key + "-") }.max { $0.key.count < $1.key.count }?.value.folder
        }
    }

    static func mixId(_ language: Language) -> String { "mix-\(language.rawValue)" }

    /// The language of a mix's id, nil for any other id.
    static func mixLanguage(_ packId: String) -> Language? {
        guard packId.hasPrefix("mix-") else { return nil }
        return Language(rawValue: String(packId.dropFirst(4)))
    }

    /// The mix of a language's packs, the family's own first; a destination id that two packs share
    /// is taken from the first. Nil with fewer than two packs: the mix would be the one pack.
    func mix(_ language: Language) -> Mix? {
        let members = offeredEntries.filter { $0.pack.language == language }
        guard members.count >= 2, let first = members.first else { return nil }
        var destinations: [Destination] = []
        var sources: [String: (packId: String, folder: String)] = [:]
        for entry in members {
            for destination in entry.pack.destinations where sources[destination.id] == nil {
                sources[destination.id] = (entry.pack.packId, entry.folder)
                destinations.append(destination)
            }
        }
        let pack = Pack(
            packId: Self.mixId(language),
            title: language == .sv ? "Blandat från alla paket" : "Mix of all packs",
            description: language == .sv
                ? "Resmål från alla paket på svenska, de minst spelade först."
                : "Destinations from every English pack, the least played first.",
            language: language, version: "1.0.0", licence: first.pack.licence, destinations: destinations)
        return Mix(pack: pack, sources: sources, introFolder: first.folder)
    }

    /// The pack each of a pack's destinations is recorded under when played: the pack itself, or
    /// for a mix the pack the destination comes from.
    func recordingPacks(of packId: String) -> [String: String] {
        if let language = Self.mixLanguage(packId) {
            return mix(language)?.sources.mapValues(\.packId) ?? [:]
        }
        let destinations = self[packId]?.destinations ?? []
        return Dictionary(destinations.map { ($0.id, packId) }, uniquingKeysWith: { first, _ in first })
    }
}
