import Core
import Foundation
import Logging
import Synchronization

/// The packs the box plays: the shipped ones, read-only, and those written on the box
/// (`PUT /v1/packs/{packId}`, CONTRACT 4.3), kept in the data folder. Each is validated when it is
/// loaded; a pack with problems is left out with a logged reason, and the box still starts with the
/// others. Packs written on the box are playable at once, without a restart.
final class PackLibrary: Sendable {
    enum Origin: String, Codable, Sendable {
        /// `mix`: every pack of a language at once (`PackLibrary+Mix.swift`).
        case shipped, box, mix
    }

    struct Entry: Sendable {
        var pack: Pack
        /// Its folder, where its voice clips are rendered: its name need not be the pack's id.
        var folder: String
        var origin: Origin
        /// Deleted while a live session plays it: kept for that session, offered to no new one.
        var retiring = false
    }

    /// Why a pack could not be written, read or deleted.
    enum WriteError: Error, Equatable {
        case invalid([PackProblem])
        case readOnly
        case notFound
        case storage(String)
    }

    /// The shipped packs' folder.
    let directory: String
    /// Where packs written on the box go (`<data-dir>/packs`); nil for a box that takes none (`tripto doctor`).
    let boxDirectory: String?
    private let preferredDefault: String?
    private let entries: Mutex<[String: Entry]>

    /// A pack id in an address: what the pack format allows, and nothing a path could be made of.
    static func isWellFormed(_ packId: String) -> Bool {
        (3...40).contains(packId.count) && packId.first != "-"
            && packId.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" }
    }

    init(directory: String, boxDirectory: String? = nil, preferredDefault: String?, logger: Logger) {
        self.directory = directory
        self.boxDirectory = boxDirectory
        self.preferredDefault = preferredDefault
        var entries: [String: Entry] = [:]
        for (folder, origin) in [(directory, Origin.shipped)] + (boxDirectory.map { [($0, Origin.box)] } ?? []) {
            for (path, pack, retiring) in Self.load(folder, origin: origin, logger: logger) {
                guard Self.mixLanguage(pack.packId) == nil else {
                    logger.error(
                        "pack left out: the id is the mix's",
                        metadata: ["file": "\(PackFiles.file(for: path))", "pack.id": "\(pack.packId)"])
                    continue
                }
                guard entries[pack.packId] == nil else {
                    logger.error(
                        "pack left out: duplicate id",
                        metadata: ["file": "\(PackFiles.file(for: path))", "pack.id": "\(pack.packId)"])
                    continue
                }
                entries[pack.packId] = Entry(pack: pack, folder: path, origin: origin, retiring: retiring)
            }
        }
        self.entries = Mutex(entries)
    }

    /// The packs in the folders of `directory`, in name order, and whether each was deleted while a
    /// session played it (`retiring`); a folder without a pack.json is skipped quietly.
    private static func load(_ directory: String, origin: Origin, logger: Logger) -> [(String, Pack, Bool)] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory))?.sorted() ?? []
        var found: [(String, Pack, Bool)] = []
        for name in names where !name.hasPrefix(".") {
            let folder = (directory as NSString).appendingPathComponent(name)
            let retiring = origin == .box && FileManager.default.fileExists(atPath: Self.deletedMarker(in: folder))
            let (file, pack, problems) = PackFiles.load(folder)
            guard FileManager.default.fileExists(atPath: file) else { continue }
            guard let pack else {
                logger.error(
                    "pack left out",
                    metadata: [
                        "file": "\(file)", "problems": "\(problems.count)", "first": "\(problems.first ?? "")",
                    ])
                continue
            }
            found.append((folder, pack, retiring))
        }
        return found
    }

    private static func deletedMarker(in folder: String) -> String {
        (folder as NSString).appendingPathComponent(".deleted")
    }

    // MARK: Reading

    /// Any pack the box holds, a retiring one too: for the sessions that play it.
    subscript(packId: String) -> Pack? {
        if let language = Self.mixLanguage(packId) { return mix(language)?.pack }
        return entries.withLock { $0[packId]?.pack }
    }

    /// A pack a new session may choose.
    func offered(_ packId: String) -> Pack? {
        if let language = Self.mixLanguage(packId) { return mix(language)?.pack }
        return entries.withLock { entries in entries[packId].flatMap { $0.retiring ? nil : $0.pack } }
    }

    /// The packs new sessions may choose, as `summaries` lists them.
    var offeredEntries: [Entry] {
        entries.withLock { entries in
            entries.values.filter { !$0.retiring }
                .sorted { ($0.origin == .box ? 0 : 1, $0.pack.packId) < ($1.origin == .box ? 0 : 1, $1.pack.packId) }
        }
    }

    /// The default pack's id: the preferred one if it is offered, else the first Swedish pack (the
    /// box's home audience), else the first.
    var defaultPackId: String? {
        let offered = summaries
        if let preferredDefault, offered.contains(where: { $0.packId == preferredDefault }) { return preferredDefault }
        let shipped = offered.filter { $0.origin == .shipped }.sorted { $0.packId < $1.packId }
        let candidates = shipped.isEmpty ? offered.sorted { $0.packId < $1.packId } : shipped
        return (candidates.first { $0.language == .sv } ?? candidates.first)?.packId
    }

    /// The default pack for a language: the box's default if it speaks it, else the first that does.
    func defaultPack(for language: Language?) -> Pack? {
        if let id = defaultPackId, let pack = offered(id), language == nil || pack.language == language { return pack }
        let packs = entries.withLock { $0.values.filter { !$0.retiring }.map(\.pack) }
        return packs.filter { language == nil || $0.language == language }.min { $0.packId < $1.packId }
    }

    /// The packs new sessions may choose: the family's own first, then the shipped ones, each by id,
    /// then a mix of each language that has two packs or more.
    var summaries: [PackSummary] {
        let single = offeredEntries.map { PackSummary($0.pack, origin: $0.origin) }
        let mixes = Language.allCases.compactMap { mix($0) }.map { PackSummary($0.pack, origin: .mix) }
        return single + mixes
    }

    /// Where a pack's rendered clip lives, if the id is well formed.
    func clipPath(packId: String, clipId: String) -> String? {
        guard !clipId.isEmpty, clipId.count <= 80,
            clipId.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" })
        else { return nil }
        let folder: String
        if let language = Self.mixLanguage(packId) {
            guard let found = mix(language)?.folder(ofClip: clipId) else { return nil }
            folder = found
        } else {
            folder = entries.withLock { $0[packId]?.folder } ?? (directory as NSString).appendingPathComponent(packId)
        }
        return (folder as NSString).appendingPathComponent("voice/\(clipId).wav")
    }

    // MARK: Packs written on the box

    struct Written: Sendable {
        var pack: Pack
        var created: Bool
        var warnings: [PackProblem]
        var folder: String
    }

    /// Checks and saves a pack sent for `packId`: created or replaced, never a shipped one. Written
    /// to a new file that then takes the old one's name, so a crash leaves the old pack or the new.
    func put(_ packId: String, data: Data) throws(WriteError) -> Written {
        guard let boxDirectory else { throw .storage("this box takes no packs") }
        let (pack, problems) = PackValidator.validate(data: data, file: "")
        guard let pack, problems.isEmpty else { throw .invalid(problems) }
        guard pack.packId == packId else {
            throw .invalid([PackProblem(path: "$.packId", reason: "must be \"\(packId)\", the id in the address")])
        }
        guard Self.mixLanguage(packId) == nil else { throw .readOnly }
        return try entries.withLock { entries throws(WriteError) -> Written in
            if entries[packId]?.origin == .shipped { throw .readOnly }
            let folder = (boxDirectory as NSString).appendingPathComponent(packId)
            do {
                try Self.save(data, in: folder)
            } catch {
                throw .storage(FileSystemErrors.reason(error))
            }
            let created = entries[packId] == nil || entries[packId]?.retiring == true
            entries[packId] = Entry(pack: pack, folder: folder, origin: .box)
            return Written(pack: pack, created: created, warnings: PackValidator.advice(pack), folder: folder)
        }
    }

    /// What `put` would say of a pack sent for `packId`, without saving it: every problem (the
    /// validator's, an id that is not the address's, an id the box keeps for its own packs) and, for a
    /// pack with none, the validator's advice. The studio page asks this as its author types.
    func check(_ packId: String, data: Data) -> (problems: [PackProblem], warnings: [PackProblem]) {
        let (pack, found) = PackValidator.validate(data: data, file: "")
        var problems = found
        if let pack, pack.packId != packId {
            problems.append(PackProblem(path: "$.packId", reason: "must be \"\(packId)\", the id in the address"))
        }
        if Self.mixLanguage(packId) != nil || entries.withLock({ $0[packId]?.origin == .shipped }) {
            problems.append(
                PackProblem(path: "$.packId", reason: "\"\(packId)\" is a pack shipped with the box: choose another id")
            )
        }
        guard let pack, problems.isEmpty else { return (problems, []) }
        return ([], PackValidator.advice(pack))
    }

    /// The pack as stored, for export.
    func stored(_ packId: String) throws(WriteError) -> Data {
        guard let entry = entries.withLock({ $0[packId] }), !entry.retiring else { throw .notFound }
        guard let data = FileManager.default.contents(atPath: PackFiles.file(for: entry.folder)) else {
            throw .storage("cannot read \(entry.folder)")
        }
        return data
    }

    /// Deletes a pack written on the box. One that a live session plays (`inUse`) is offered to no new
    /// session from now on, and goes once no session plays it (`removeRetiring`), a restart between.
    func delete(_ packId: String, inUse: Bool) throws(WriteError) {
        guard Self.mixLanguage(packId) == nil else { throw .readOnly }
        try entries.withLock { entries throws(WriteError) in
            guard let entry = entries[packId], !entry.retiring else { throw .notFound }
            guard entry.origin == .box else { throw .readOnly }
            do {
                if inUse {
                    try Data().write(to: URL(fileURLWithPath: Self.deletedMarker(in: entry.folder)))
                    entries[packId]?.retiring = true
                } else {
                    try FileManager.default.removeItem(atPath: entry.folder)
                    entries[packId] = nil
                }
            } catch {
                throw .storage("\(error)")
            }
        }
    }

    /// Removes the packs deleted while in use that no live session plays any more.
    func removeRetiring(keeping live: Set<String>) {
        entries.withLock { entries in
            for (packId, entry) in entries where entry.retiring && !live.contains(packId) {
                guard (try? FileManager.default.removeItem(atPath: entry.folder)) != nil else { continue }
                entries[packId] = nil
            }
        }
    }

    /// Writes `pack.json` in `folder` through a temporary file, synced, then renamed over the old.
    private static func save(_ data: Data, in folder: String) throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        // A pack id deleted while in use and written again is a new pack: its marker goes.
        try? FileManager.default.removeItem(atPath: deletedMarker(in: folder))
        let file = PackFiles.file(for: folder)
        let temporary = file + ".writing"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw SaveError(path: temporary, code: errno) }
        defer { close(descriptor) }
        try data.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                guard written > 0 else { throw SaveError(path: temporary, code: errno) }
                offset += written
            }
        }
        guard fsync(descriptor) == 0 else { throw SaveError(path: temporary, code: errno) }
        guard rename(temporary, file) == 0 else { throw SaveError(path: file, code: errno) }
        let directory = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directory >= 0 {
            fsync(directory)
            close(directory)
        }
    }
}

/// A system call that failed while saving a pack.
private struct SaveError: Error, CustomStringConvertible {
    let path: String
    let code: Int32
    var description: String { "\(path): \(String(cString: strerror(code)))" }
}

struct PackSummary: Codable, Sendable, Equatable {
    var packId: String
    var title: String
    var language: Language
    var destinations: Int
    var origin: PackLibrary.Origin
    var difficulty: PackDifficulty

    init(_ pack: Pack, origin: PackLibrary.Origin) {
        packId = pack.packId
        title = pack.title
        language = pack.language
        destinations = pack.destinations.count
        self.origin = origin
        difficulty = pack.difficulty ?? .standard
    }
}
