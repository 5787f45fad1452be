import Core
import Foundation
import Testing

@testable import Console

/// The seats kept in `seats.json`, as several consoles keep them at once.
@Suite("kept seats", .timeLimit(.minutes(5)))
struct SeatStoreTests {
    @Test("seats kept by many consoles at the same moment are all kept, and forgetting one keeps the others")
    func concurrentKeeps() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("seats-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = SeatStore(file: folder.appendingPathComponent("tripto-console/seats.json"))
        let box = "http://127.0.0.1:8080"
        // Fewer than the store's limit, so every one of them must be there afterwards.
        let count = 40
        let seats = (0..<count).map {
            Seat(role: .player, sessionId: "s1", joinCode: "ABC234", token: "token\($0)", playerId: "p_\($0)")
        }
        // Threads of their own, all let go at once, as consoles started in the same second.
        let start = DispatchGroup()
        start.enter()
        let done = DispatchGroup()
        for (index, seat) in seats.enumerated() {
            done.enter()
            Thread {
                start.wait()
                store.keep(seat, box: box, name: "Player \(index)")
                done.leave()
            }.start()
        }
        start.leave()
        done.wait()
        for (index, seat) in seats.enumerated() {
            #expect(store.seat(box: box, code: "abc-234", role: .player, name: "Player \(index)") == seat, "\(index)")
        }

        let forgotten = DispatchGroup()
        for seat in seats.prefix(10) {
            forgotten.enter()
            Thread {
                store.forget(seat, box: box)
                forgotten.leave()
            }.start()
        }
        forgotten.wait()
        for (index, seat) in seats.enumerated() {
            let kept = store.seat(box: box, code: "ABC234", role: .player, name: "Player \(index)")
            #expect(kept == (index < 10 ? nil : seat), "\(index)")
        }
        // No half-written file is left behind.
        let left = try FileManager.default.contentsOfDirectory(atPath: store.file.deletingLastPathComponent().path)
        #expect(Set(left) == ["seats.json", "seats.lock"])
    }
}
