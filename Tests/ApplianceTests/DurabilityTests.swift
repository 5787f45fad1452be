import Foundation
import Testing

@testable import Appliance

@Suite("Durability")
struct DurabilityTests {
    /// GRDB's pool switches a WAL database to `synchronous = NORMAL` as it opens; the box's writer
    /// must still sync every commit (docs/storage.md, "Durability").
    @Test("the box's database syncs every commit to disk (synchronous = FULL), in a file and in memory")
    func everyCommitIsSynced() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tripto-durability-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        let onDisk = try BoxDatabase.open(path: folder.appendingPathComponent("tripto.sqlite").path)
        #expect(try onDisk.synchronous == 2)
        let inMemory = try BoxDatabase.inMemory()
        #expect(try inMemory.synchronous == 2)
    }
}
