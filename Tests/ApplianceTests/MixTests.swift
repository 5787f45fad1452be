import Core
import Foundation
import GRDB
import Logging
import Testing

@testable import Appliance

/// The mix of a language's packs (`mix-en`, `mix-sv`): listed with the packs, played by the same
/// draw as one pack, its history shared with its packs and kept through a restart.
@Suite("The mix of all packs", .serialized, .timeLimit(.minutes(5)))
struct MixTests {
    @Test("listed after the packs with its difficulty and size; read-only; its clips come from each pack's folder")
    func listedAndReadOnly() async throws {
        let box = try BoxProcess()
        try await box.start()
        defer { box.terminate() }
        let http = HTTP(base: box.baseURL)
        let list = try JSONSerialization.jsonObject(with: try await http.get("/v1/packs").body) as! [[String: Any]]
        let single = list.filter { $0["origin"] as? String != "mix" }
        #expect(list.allSatisfy { ["easy", "standard", "hard"].contains($0["difficulty"] as? String ?? "") })
        for language in ["en", "sv"] {
            let mix = try #require(list.first { $0["packId"] as? String == "mix-\(language)" })
            #expect(mix["origin"] as? String == "mix" && mix["language"] as? String == language)
            let sum = single.filter { $0["language"] as? String == language }.map { $0["destinations"] as! Int }
            #expect(mix["destinations"] as? Int == sum.reduce(0, +), "shipped packs share no destination id")
        }
        #expect(list.suffix(2).allSatisfy { $0["origin"] as? String == "mix" }, "the mixes come last")

        let token = try String(contentsOf: box.dataDirectory.appendingPathComponent("admin-token"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let admin = ["Authorization": "Bearer \(token)"]
        var pack = try JSONSerialization.jsonObject(with: PacksAPITests.familyPack()) as! [String: Any]
        pack["packId"] = "mix-en"
        let put = try await http.call(
            "PUT", "/v1/packs/mix-en", raw: try JSONSerialization.data(withJSONObject: pack), headers: admin)
        #expect(put.status == 409 && put.error == "PACK_READ_ONLY", "\(put.text)")
        #expect(try await http.call("DELETE", "/v1/packs/mix-en", headers: admin).status == 409)

        let library = PackLibrary(directory: box.packsDirectory, preferredDefault: nil, logger: Logger(label: "test"))
        let europe = try #require(library["en-europe"]?.destinations.first)
        let world = try #require(library["en-world"]?.destinations.first)
        #expect(
            library.clipPath(packId: "mix-en", clipId: "\(europe.id)-clue-10")
                == "\(box.packsDirectory)/en-europe/voice/\(europe.id)-clue-10.wav")
        #expect(
            library.clipPath(packId: "mix-en", clipId: "\(world.id)-followup-2")
                == "\(box.packsDirectory)/en-world/voice/\(world.id)-followup-2.wav")
        #expect(library.clipPath(packId: "mix-en", clipId: "nowhere-clue-10") == nil)
    }

    @Test("game after game the mix plays every destination before any again, recorded under its pack, across a restart")
    func drawAcrossGames() async throws {
        let box = try BoxProcess()
        try await box.start()
        let library = PackLibrary(directory: box.packsDirectory, preferredDefault: nil, logger: Logger(label: "test"))
        let mix = try #require(library.mix(.en))
        let sourceOf = mix.sources.mapValues(\.packId)
        let total = mix.pack.destinations.count
        let perGame = Settings.destinationsRange.upperBound
        let fullGames = total / perGame
        #expect(fullGames >= 2)

        for _ in 0..<fullGames { try await startGame(on: box, count: perGame) }
        var played = try await playedRecords(box)
        #expect(played.count == fullGames * perGame)
        #expect(Set(played.map(\.destination)).count == played.count, "no destination twice before all were played")
        #expect(played.allSatisfy { sourceOf[$0.destination] == $0.pack }, "recorded under the pack it comes from")
        // Games from one pack of the mix take what the mix left unplayed from that pack first.
        let unplayed = Set(mix.pack.destinations.map(\.id)).subtracting(played.map(\.destination))

        await box.stop()
        try await box.start()
        try await startGame(on: box, count: perGame)
        played = try await playedRecords(box)
        let latest = Set(played.suffix(perGame).map(\.destination))
        #expect(latest.isSuperset(of: unplayed), "after a restart, the ones never played come first")
        await box.stop()
    }

    /// Creates a session on the mix, seats a player, starts: the box draws and records the game.
    private func startGame(on box: BoxProcess, count: Int) async throws {
        let table = try await LiveTable.open(
            box, settings: ["packId": "mix-en", "destinationsCount": count, "introMs": 0], players: ["Ada"], tv: false)
        table.host.send(.hostStartGame)
        try await table.host.expect("CLUE_PRESENT")
        let ended = try await table.http.call(
            "DELETE", "/v1/sessions/\(table.sessionId)", headers: ["Authorization": "Bearer \(table.hostToken)"])
        #expect(ended.status == 204)
        table.closeAll()
    }

    /// The box's record of what it played, oldest first.
    private func playedRecords(_ box: BoxProcess) async throws -> [(pack: String, destination: String)] {
        let database = try DatabaseQueue(path: box.databasePath)
        return try await database.read { db in
            try Row.fetchAll(db, sql: "SELECT packId, destinationId FROM played ORDER BY playedAt, rowid").map {
                (pack: $0["packId"], destination: $0["destinationId"])
            }
        }
    }
}
