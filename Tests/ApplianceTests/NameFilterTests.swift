import Foundation
import Testing

@testable import Appliance

/// CONTRACT 4.4's names: insults and slurs in Swedish and English refused as whole words, whatever
/// the case, the diacritics or digits for letters; ordinary names that contain such letters are not.
@Suite("name filter")
struct NameFilterTests {
    static let filter = try! NameFilter.bundled()

    @Test(
        "refused: listed words in any case, with diacritics or digits for letters, anywhere in the name",
        arguments: [
            "Hora", "h0ra", "HORA", "Höra", "Kalle Hora", "hora!", "Fuck", "FUCK you", "sh1t", "s1ut", "5lut",
            "wh0re", "Bög", "b0g", "Fitta", "kuk", "Knulla", "n1gger", "Cunt_99", "dickhead", "Svartskalle",
        ])
    func refused(_ name: String) {
        #expect(Self.filter.refuses(name), "\(name)")
    }

    @Test(
        "taken: names and words that only contain a listed one, and ordinary names",
        arguments: [
            "Scunthorpe", "Assar", "Dick", "Dickens", "Jude", "Fan", "Skit", "Cockburn", "Shitake", "Horatio",
            "Kukri", "Anna", "Björn", "Åsa", "Jöns", "Cilla", "Bot Astrid", "Player 8", "R2-D2", "Hannah 1",
        ])
    func taken(_ name: String) {
        #expect(!Self.filter.refuses(name), "\(name)")
    }

    @Test("each list holds words only, and names its source and licence")
    func lists() throws {
        let folder = try #require(Bundle.module.url(forResource: "Names", withExtension: nil))
        for language in ["en", "sv"] {
            let text = try String(contentsOf: folder.appendingPathComponent("\(language).txt"), encoding: .utf8)
            #expect(text.contains("CC0-1.0"))
            let words = text.split(separator: "\n").filter { !$0.hasPrefix("#") }
            #expect(words.count >= 30)
            #expect(words.allSatisfy { $0.allSatisfy(\.isLetter) }, "\(language): \(words)")
        }
    }
}

/// The join that the filter guards, on a running box, with the filter and with `--allow-any-name`.
@Suite("names on a live box", .serialized, .timeLimit(.minutes(2)))
struct NameFilterLiveTests {
    private func join(_ name: String, on box: BoxProcess) async throws -> HTTP.Reply {
        let http = HTTP(base: box.baseURL)
        let created = try await http.post("/v1/sessions", ["role": "HOST"])
        return try await http.post(
            "/v1/sessions/\(created.string("sessionId"))/join",
            ["name": name, "joinToken": created.string("joinToken")])
    }

    @Test("a refused name is 400 INVALID_NAME asking for another; --allow-any-name takes it")
    func live() async throws {
        let box = try BoxProcess()
        try await box.start()
        let refused = try await join("H0ra", on: box)
        #expect(refused.status == 400 && refused.error == "INVALID_NAME")
        #expect(refused.string("message").contains("another name"))
        #expect(try await join("Scunthorpe", on: box).status == 201)
        await box.stop()
        let open = try BoxProcess(arguments: ["--allow-any-name"])
        try await open.start()
        #expect(try await join("H0ra", on: open).status == 201)
        await open.stop()
    }
}
