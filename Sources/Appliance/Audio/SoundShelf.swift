import Foundation

/// The box's music beds and effects, composed once and kept as WAV files in `folder`: the box's own
/// speaker plays them, and TV pages download them (`GET /v1/sounds`, CONTRACT 4.5). Whoever needs
/// them first composes them (about a second, more in a debug build); the other waits for that.
final class SoundShelf: @unchecked Sendable {
    let folder: URL
    private let lock = NSLock()
    private var library: SoundLibrary?

    init(folder: URL) {
        self.folder = folder
    }

    /// The sounds, and whether this call composed them (false when read from the folder or known).
    func load() -> (library: SoundLibrary, composed: Bool) {
        lock.withLock {
            if let library { return (library, false) }
            let loaded = SoundLibrary.load(cachedIn: folder)
            library = loaded.library
            return loaded
        }
    }

    /// The WAV file of sound `id`, written again if it is not there (a folder cleaned while the box
    /// runs): under the lock, so no request reads a file another is writing.
    func file(of id: String) -> URL? {
        let library = load().library
        guard library[id: id] != nil else { return nil }
        let file = folder.appendingPathComponent("\(id).wav")
        lock.withLock {
            if !FileManager.default.fileExists(atPath: file.path) { try? library.write(to: folder) }
        }
        return file
    }
}
