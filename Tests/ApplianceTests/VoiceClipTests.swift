import Core
import Foundation
import Testing

/// Voice clips on the wire: named by their place in the game, served only once they have played.
@Suite("Voice clips over HTTP", .serialized, .timeLimit(.minutes(5)))
struct VoiceClipTests {
    /// A copy of the Swedish pack with a short WAV for every clip it can play, in a folder not named
    /// after the pack (`render-voice` writes into the pack's own folder, whatever its name).
    static func packsWithClips(banter: Bool = true) throws -> URL {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("tripto-packs-\(UUID().uuidString)")
        let folder = root.appendingPathComponent("svenska-resor")
        let voice = folder.appendingPathComponent("voice")
        try FileManager.default.createDirectory(at: voice, withIntermediateDirectories: true)
        let source = BoxProcess.repositoryRoot.appendingPathComponent("packs/sv-sverige/pack.json")
        try FileManager.default.copyItem(at: source, to: folder.appendingPathComponent("pack.json"))
        let pack = try JSONDecoder().decode(Pack.self, from: Data(contentsOf: source))
        var names = ["intro"]
        for destination in pack.destinations {
            names += [8, 6, 4, 2].map { "\(destination.id)-clue-\($0)" }
            names += ["\(destination.id)-reveal"] + (1...3).map { "\(destination.id)-followup-\($0)" }
        }
        for name in names { try wav(milliseconds: 1_500).write(to: voice.appendingPathComponent("\(name).wav")) }
        // Banter lines as long as their number says (1,210 ms, 1,220 …): the right one is served.
        for destination in pack.destinations where banter {
            for index in (destination.banter ?? []).indices {
                try wav(milliseconds: 1_200 + 10 * (index + 1)).write(
                    to: voice.appendingPathComponent("\(destination.id)-banter-\(index + 1).wav"))
            }
        }
        // Each destination's first clue is as long as its place in the pack says: 1,010 ms, 1,020 …
        for (index, destination) in pack.destinations.enumerated() {
            try wav(milliseconds: 1_000 + 10 * (index + 1)).write(
                to: voice.appendingPathComponent("\(destination.id)-clue-10.wav"))
        }
        return root
    }

    /// A silent mono 16-bit 22,050 Hz WAV of the given length.
    static func wav(milliseconds: Int) -> Data {
        let rate = 22_050
        let bytes = rate * 2 * milliseconds / 1000
        var data = Data("RIFF".utf8)
        func append(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) } }
        func append16(_ value: UInt16) { withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) } }
        append(UInt32(36 + bytes))
        data.append(contentsOf: Data("WAVEfmt ".utf8))
        append(16)
        append16(1)
        append16(1)
        append(UInt32(rate))
        append(UInt32(rate * 2))
        append16(2)
        append16(16)
        data.append(contentsOf: Data("data".utf8))
        append(UInt32(bytes))
        data.append(Data(count: bytes))
        return data
    }

    @Test("AUDIO_PLAY names the clip by round, gives its url and length; unplayed clips are not served")
    func clips() async throws {
        let packs = try Self.packsWithClips()
        defer { try? FileManager.default.removeItem(at: packs) }
        let box = try BoxProcess(packs: packs.path)
        try await box.start()
        let table = try await LiveTable.open(box, settings: ["introMs": 0], players: ["Anna"], tv: true)
        table.host.send(.hostStartGame)
        let play = try await table.tv!.expect("AUDIO_PLAY") { $0.payloadObject["kind"] as? String == "clue" }
        #expect(play.payloadObject["clipId"] as? String == "r1-clue-10")
        let duration = try #require(play.payloadObject["durationMs"] as? Int)
        #expect((1_010...1_120).contains(duration))
        let url = try #require(play.payloadObject["url"] as? String)
        let served = try await table.http.get(url)
        #expect(served.status == 200)
        #expect(served.headers["content-type"] == "audio/wav")
        #expect(served.headers["cache-control"] == "no-cache")
        #expect(served.body == Self.wav(milliseconds: duration))
        let name = try await table.destinationName()
        for ahead in ["r1-clue-8", "r1-reveal", "r1-followup-1", "r2-clue-10"] {
            #expect(
                try await table.http.get("/v1/sessions/\(table.sessionId)/assets/\(ahead)").status == 404, "\(ahead)")
        }
        #expect(!(await table.tv!.allTexts()).contains { $0.lowercased().contains(name.lowercased()) })
        table.host.send(.hostForceReveal)
        try await table.tv!.expect("DESTINATION_REVEAL")
        #expect(try await table.http.get("/v1/sessions/\(table.sessionId)/assets/r1-reveal").status == 200)
        table.closeAll()
    }

    @Test("the banter is said after the reveal's line, and is served once revealed")
    func banterAfterReveal() async throws {
        let packs = try Self.packsWithClips()
        defer { try? FileManager.default.removeItem(at: packs) }
        let box = try BoxProcess(packs: packs.path)
        try await box.start()
        let table = try await LiveTable.open(box, settings: ["introMs": 0], players: ["Anna"], tv: true)
        table.host.send(.hostStartGame)
        try await table.tv!.expect("AUDIO_PLAY") { $0.payloadObject["kind"] as? String == "clue" }
        #expect(try await table.http.get("/v1/sessions/\(table.sessionId)/assets/r1-banter").status == 404)
        table.host.send(.hostForceReveal)
        let reveal = try await table.tv!.expect("AUDIO_PLAY") { $0.payloadObject["kind"] as? String == "reveal" }
        let banter = try await table.tv!.expect("AUDIO_PLAY") { $0.payloadObject["kind"] as? String == "banter" }
        #expect(banter.payloadObject["clipId"] as? String == "r1-banter")
        let revealAt = try #require(reveal.payloadObject["startAtServerMs"] as? Int)
        let revealMs = try #require(reveal.payloadObject["durationMs"] as? Int)
        #expect(banter.payloadObject["startAtServerMs"] as? Int == revealAt + revealMs + 400)
        // Round 1 says its destination's first line.
        #expect(banter.payloadObject["durationMs"] as? Int == 1_210)
        let served = try await table.http.get(try #require(banter.payloadObject["url"] as? String))
        #expect(served.status == 200 && served.body == Self.wav(milliseconds: 1_210))
        let snapshot = try await table.tv!.latestSnapshot()
        #expect(snapshot.round?.destination?.banter?.isEmpty == false)
        table.closeAll()
    }

    @Test("a banter line whose clip the box does not have is not sent at all")
    func banterWithoutClip() async throws {
        let packs = try Self.packsWithClips(banter: false)
        defer { try? FileManager.default.removeItem(at: packs) }
        let box = try BoxProcess(packs: packs.path)
        try await box.start()
        let table = try await LiveTable.open(box, settings: ["introMs": 0], players: ["Anna"], tv: true)
        table.host.send(.hostStartGame)
        try await table.tv!.expect("AUDIO_PLAY") { $0.payloadObject["kind"] as? String == "clue" }
        table.host.send(.hostForceReveal)
        try await table.tv!.expect("AUDIO_PLAY") { $0.payloadObject["kind"] as? String == "reveal" }
        table.host.send(.hostNext)
        try await table.tv!.expect("AUDIO_PLAY") { $0.payloadObject["kind"] as? String == "followup" }
        let kinds = await table.tv!.allTexts().compactMap { text -> String? in
            guard text.contains("\"AUDIO_PLAY\"") else { return nil }
            return (try? JSONDecoder().decode(ServerMessage.self, from: Data(text.utf8))).flatMap {
                if case .audioPlay(let play) = $0.event { play.kind.rawValue } else { nil }
            }
        }
        #expect(kinds.suffix(3) == ["clue", "reveal", "followup"], "\(kinds)")
        // Its words still show with the destination.
        #expect(try await table.tv!.latestSnapshot().round?.destination?.banter?.isEmpty == false)
        table.closeAll()
    }

    @Test("after a restart the same clip name is the next destination's line: its length and its file follow")
    func restartedGame() async throws {
        let packs = try Self.packsWithClips()
        defer { try? FileManager.default.removeItem(at: packs) }
        let box = try BoxProcess(packs: packs.path)
        try await box.start()
        let table = try await LiveTable.open(
            box, settings: ["introMs": 0, "destinationsCount": 1, "followupsPerDestination": 0, "finaleMs": 0],
            players: ["Anna"], tv: true)
        var durations: [Int] = []
        for game in 0..<2 {
            if game > 0 {
                table.host.send(.hostRestart)
                try await table.tv!.expect("LOBBY_UPDATED")
            }
            table.host.send(.hostStartGame)
            let play = try await table.tv!.expect("AUDIO_PLAY") { $0.payloadObject["kind"] as? String == "clue" }
            #expect(play.payloadObject["clipId"] as? String == "r1-clue-10")
            let duration = try #require(play.payloadObject["durationMs"] as? Int)
            let served = try await table.http.get(try #require(play.payloadObject["url"] as? String))
            #expect(served.body == Self.wav(milliseconds: duration), "game \(game + 1)")
            durations.append(duration)
            table.host.send(.hostForceReveal)
            try await table.tv!.expect("DESTINATION_REVEAL")
            table.host.send(.hostNext)
            try await table.tv!.expect("SCOREBOARD_UPDATE")
            table.host.send(.hostNext)
            try await table.tv!.expect("FINAL_RESULTS_PRESENT")
        }
        // A destination just played is not drawn again at once: the second game's line is another.
        #expect(durations[0] != durations[1])
        table.closeAll()
    }
}
