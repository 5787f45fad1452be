import Foundation
import Testing

@testable import Appliance

/// `GET /v1/sounds` (CONTRACT 4.5): the beds and effects a TV page plays, from a box with no sound
/// output of its own, composed on the first request.
@Suite("The box's sounds over HTTP", .timeLimit(.minutes(5)))
struct SoundsAPITests {
    @Test("the list names every bed and effect; each is a WAV the browser may keep, revalidated by its ETag")
    func listAndFetch() async throws {
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("tripto-sounds-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: cache) }
        let box = try BoxProcess(arguments: ["--sounds-cache", cache.path])
        try await box.start()
        defer { box.terminate() }
        let http = HTTP(base: box.baseURL)
        let listing = try await http.get("/v1/sounds")
        #expect(listing.status == 200)
        #expect(listing.json["revision"] as? String == SoundLibrary.revision)
        let sounds = try #require(listing.json["sounds"] as? [[String: Any]])
        #expect(Set(sounds.compactMap { $0["soundId"] as? String }) == Set(SoundLibrary.ids))
        let travel = try #require(sounds.first { $0["soundId"] as? String == "travel" })
        #expect(travel["kind"] as? String == "music" && travel["loops"] as? Bool == true)
        #expect((travel["durationMs"] as? Int ?? 0) > 20_000)
        let brake = try #require(sounds.first { $0["soundId"] as? String == "brake" })
        #expect(brake["kind"] as? String == "sfx" && brake["loops"] as? Bool == false)

        let url = try #require(brake["url"] as? String)
        let served = try await http.get(url)
        #expect(served.status == 200)
        #expect(served.headers["content-type"] == "audio/wav")
        #expect(served.headers["cache-control"]?.contains("max-age") == true)
        #expect(served.body.prefix(4) == Data("RIFF".utf8) && served.body.count > 100_000)
        let etag = try #require(served.headers["etag"])
        let again = try await http.call("GET", url, headers: ["If-None-Match": etag])
        #expect(again.status == 304 && again.body.isEmpty)
        // Composed once, into the cache the box's speaker would use.
        #expect(FileManager.default.fileExists(atPath: cache.appendingPathComponent("brake.wav").path))

        let missing = try await http.get("/v1/sounds/nothing")
        #expect(missing.status == 404)
        #expect(missing.error == "NOT_FOUND")
    }
}
