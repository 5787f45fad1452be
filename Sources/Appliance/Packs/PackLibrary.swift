import Core
import Foundation
import Logging

/// The packs the box plays, loaded and validated once at start. A pack with problems is left out
/// with a logged reason; the box still starts with the others.
struct PackLibrary: Sendable {
    let directory: String
    private(set) var packs: [String: Pack] = [:]
    /// Each pack's folder, where its voice clips are rendered: its name need not be the pack's id.
    private var folders: [String: String] = [:]
    let defaultPackId: String?

    init(directory: String, preferredDefault: String?, logger: Logger) {
        self.directory = directory
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory))?.sorted() ?? []
        for name in names {
            let folder = (directory as NSString).appendingPathComponent(name)
            let (file, pack, problems) = PackFiles.load(folder)
            // A folder without a pack.json is not a pack (voice clips, notes): skipped quietly.
            guard FileManager.default.fileExists(atPath: file) else { continue }
            guard let pack else {
                logger.error(
                    "pack left out",
                    metadata: [
                        "file": "\(file)", "problems": "\(problems.count)",
                        "first": "\(problems.first ?? "")",
                    ])
                continue
            }
            guard packs[pack.packId] == nil else {
                logger.error("pack left out: duplicate id", metadata: ["file": "\(file)", "pack.id": "\(pack.packId)"])
                continue
            }
            packs[pack.packId] = pack
            folders[pack.packId] = folder
        }
        if let preferredDefault, packs[preferredDefault] != nil {
            defaultPackId = preferredDefault
        } else {
            // Swedish first: the box's home audience.
            let ordered = packs.values.sorted { $0.packId < $1.packId }
            defaultPackId = (ordered.first { $0.language == .sv } ?? ordered.first)?.packId
        }
    }

    subscript(packId: String) -> Pack? { packs[packId] }

    /// The default pack for a language: the box's default if it speaks it, else the first that does.
    func defaultPack(for language: Language?) -> Pack? {
        if let defaultPackId, let pack = packs[defaultPackId], language == nil || pack.language == language {
            return pack
        }
        return packs.values.filter { language == nil || $0.language == language }.min { $0.packId < $1.packId }
    }

    var summaries: [PackSummary] {
        packs.values.sorted { $0.packId < $1.packId }.map {
            PackSummary(packId: $0.packId, title: $0.title, language: $0.language, destinations: $0.destinations.count)
        }
    }

    /// Where a pack's rendered clip lives, if the id is well formed.
    func clipPath(packId: String, clipId: String) -> String? {
        guard !clipId.isEmpty, clipId.count <= 80,
            clipId.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" })
        else { return nil }
        let folder = folders[packId] ?? (directory as NSString).appendingPathComponent(packId)
        return (folder as NSString).appendingPathComponent("voice/\(clipId).wav")
    }
}

struct PackSummary: Codable, Sendable, Equatable {
    var packId: String
    var title: String
    var language: Language
    var destinations: Int
}
