import Foundation
import Logging
import Synchronization
import Testing

@testable import Appliance

/// The packs the box loads at start go through the same checks as `tripto pack validate`.
@Suite("Pack library", .timeLimit(.minutes(5)))
struct PackLibraryTests {
    @Test("a pack with a key written twice is left out with the validator's message, the others load")
    func duplicateKey() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tripto-packs-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let mini = try String(
            contentsOf: PackCommandTests.root.appendingPathComponent("Tests/CoreTests/Fixtures/mini.json"),
            encoding: .utf8)
        for (folder, text) in [
            ("good", mini),
            (
                "twice",
                mini.replacingOccurrences(of: "\"test-mini\"", with: "\"test-twice\"")
                    .replacingOccurrences(of: "\"region\":", with: "\"region\": \"Götaland\", \"region\":")
            ),
        ] {
            let pack = directory.appendingPathComponent(folder)
            try FileManager.default.createDirectory(at: pack, withIntermediateDirectories: true)
            try text.write(to: pack.appendingPathComponent("pack.json"), atomically: true, encoding: .utf8)
        }
        let logged = Logged()
        let library = PackLibrary(
            directory: directory.path, preferredDefault: nil,
            logger: Logger(label: "PackLibraryTests") { _ in Capture(logged: logged) })
        #expect(library["test-mini"] != nil)
        #expect(library["test-twice"] == nil)
        let file = directory.appendingPathComponent("twice/pack.json").path
        #expect(
            logged.lines.withLock { $0 } == [
                "pack left out first=\(file): $.destinations[0]: the key \"region\" appears twice"
            ])
    }

    private final class Logged: Sendable {
        let lines = Mutex<[String]>([])
    }

    /// Keeps each message with its `first` metadata.
    private struct Capture: LogHandler {
        let logged: Logged
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .info

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let first = event.metadata?["first"].map { " first=\($0)" } ?? ""
            logged.lines.withLock { $0.append("\(event.message)\(first)") }
        }
    }
}
