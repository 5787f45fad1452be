import Core
import Foundation
import Testing

@testable import Appliance

/// `tripto pack validate`, `show` and `render-voice`, run as the real binary: what a pack author sees.
@Suite("tripto pack", .timeLimit(.minutes(5)))
struct PackCommandTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The built `tripto` next to this test bundle.
    static var binary: URL {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: directory.appendingPathComponent("tripto").path),
            directory.path != "/"
        {
            directory.deleteLastPathComponent()
        }
        return directory.appendingPathComponent("tripto")
    }

    static func run(
        _ arguments: [String], environment: [String: String] = [:]
    ) throws -> (
        status: Int32, output: String
    ) {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.currentDirectoryURL = root
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// The same, for async tests (see `offTheTestThreads`).
    static func run(
        _ arguments: [String], environment: [String: String] = [:]
    ) async throws -> (
        status: Int32, output: String
    ) {
        try await offTheTestThreads { try run(arguments, environment: environment) as (status: Int32, output: String) }
    }

    static func temporaryPack(_ edit: (inout String) -> Void) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tripto-pack-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var text = try String(
            contentsOf: root.appendingPathComponent("Tests/CoreTests/Fixtures/mini.json"), encoding: .utf8)
        edit(&text)
        try text.write(to: folder.appendingPathComponent("pack.json"), atomically: true, encoding: .utf8)
        return folder
    }

    @Test("the shipped packs pass with status 0")
    func shipped() throws {
        let packs = try FileManager.default.contentsOfDirectory(atPath: Self.root.appendingPathComponent("packs").path)
            .sorted().map { "packs/\($0)" }
        let (status, output) = try Self.run(["pack", "validate"] + packs)
        #expect(status == 0, "\(output)")
        #expect(output.hasSuffix("\(packs.count) packs valid\n"))
    }

    /// `pack validate` of the test pack with `text` replaced by `replacement`: its status, its output,
    /// and the path of the edited pack.json (gone by then).
    private func validateEdited(
        _ text: String, _ replacement: String
    ) throws -> (
        status: Int32, output: String, file: String
    ) {
        let folder = try Self.temporaryPack { $0 = $0.replacingOccurrences(of: text, with: replacement) }
        defer { try? FileManager.default.removeItem(at: folder) }
        let (status, output) = try Self.run(["pack", "validate", folder.path])
        return (status, output, folder.appendingPathComponent("pack.json").path)
    }

    @Test("a broken pack fails with status 1 and a precise message")
    func broken() throws {
        let (status, output, file) = try validateEdited(
            "Volvo was founded here", "Volvo was founded in Gothenburg")
        #expect(status == 1)
        #expect(
            output == """
                \(file): $.destinations[0].clues[2].text: gives the answer away: it names "Gothenburg"
                1 problem found

                """)
    }

    @Test("a key written twice fails with status 1 and names the key")
    func duplicateKey() throws {
        let (status, output, file) = try validateEdited("\"region\":", "\"region\": \"Götaland\", \"region\":")
        #expect(status == 1)
        #expect(
            output == """
                \(file): $.destinations[0]: the key "region" appears twice
                1 problem found

                """)
    }

    @Test("a language the box does not speak is named as such")
    func unknownLanguage() throws {
        let (status, output, file) = try validateEdited("\"language\": \"en\"", "\"language\": \"de\"")
        #expect(status == 1)
        #expect(output.contains("\(file): $.language: must be sv or en, not \"de\""), "\(output)")
    }

    @Test("one bad pack among good ones: all are reported, status 1")
    func mixed() throws {
        let folder = try Self.temporaryPack {
            $0 = $0.replacingOccurrences(of: "\"format\": 1", with: "\"format\": \"one\"")
        }
        defer { try? FileManager.default.removeItem(at: folder) }
        let (status, output) = try Self.run(["pack", "validate", "packs/sv-sverige", folder.path, "no/such/pack"])
        #expect(status == 1)
        #expect(output.contains("packs/sv-sverige/pack.json: ok — sv-sverige (sv), "))
        #expect(output.contains("\(folder.path)/pack.json: $.format: must be a number, found a string"))
        #expect(output.contains("no/such/pack: cannot be read (no such file, or not a pack folder)"))
        #expect(output.hasSuffix("2 problems found\n"))
    }

    @Test("the same pack twice is a duplicate id")
    func duplicateIds() throws {
        let (status, output) = try Self.run(["pack", "validate", "packs/en-europe", "packs/en-europe/pack.json"])
        #expect(status == 1)
        #expect(
            output.contains(
                "packs/en-europe/pack.json: $.packId: \"en-europe\" is also the id of packs/en-europe/pack.json"))
    }

    @Test("no paths is a usage error")
    func usage() throws {
        let (status, output) = try Self.run(["pack", "validate"])
        #expect(status == 64)
        #expect(output.contains("Missing expected argument '<paths> ...'"))
    }

    @Test("show prints each destination's clues from 10 to 2, the reveal and the followups")
    func show() throws {
        let (status, output) = try Self.run(["pack", "show", "Tests/CoreTests/Fixtures/mini.json"])
        #expect(status == 0, "\(output)")
        let lines = output.split(separator: "\n").map(String.init)
        #expect(lines.first?.contains("(en), 1 destinations") == true)
        #expect(lines.contains("1. Gothenburg, Sweden [gothenburg]"))
        let points = lines.compactMap { line in Int(line.split(separator: " ").first ?? "") }
        #expect(points == [10, 8, 6, 4, 2])
        #expect(lines.contains { $0.hasPrefix("       answer: Liseberg") })
        let missing = try Self.run(["pack", "show", "Tests/CoreTests/Fixtures/mini.json", "--destination", "nowhere"])
        #expect(missing.status == 1 && missing.output.contains("no destination \"nowhere\""), "\(missing)")
    }

    @Test("render-voice speaks every line with espeak-ng, keeps existing clips, and says when it cannot")
    func renderVoice() async throws {
        let folder = try Self.temporaryPack { _ in }
        defer { try? FileManager.default.removeItem(at: folder) }
        let first = try await Self.run(["pack", "render-voice", folder.path])
        #expect(first.status == 0, "\(first.output)")
        // intro + 5 clues + reveal + 1 banter line + 2 followups
        #expect(first.output.contains("test-mini: 10 rendered, 0 kept"))
        let voice = folder.appendingPathComponent("voice")
        let clips = try FileManager.default.contentsOfDirectory(atPath: voice.path).sorted()
        #expect(
            clips == [
                "gothenburg-banter-1.wav", "gothenburg-clue-10.wav", "gothenburg-clue-2.wav", "gothenburg-clue-4.wav",
                "gothenburg-clue-6.wav",
                "gothenburg-clue-8.wav", "gothenburg-followup-1.wav", "gothenburg-followup-2.wav",
                "gothenburg-reveal.wav",
                "intro.wav", "manifest.json",
            ])
        for clip in clips where clip.hasSuffix(".wav") {
            let milliseconds = try #require(WAVDuration.milliseconds(ofFileAt: voice.appendingPathComponent(clip).path))
            #expect(milliseconds > 500, "\(clip) is \(milliseconds) ms")
        }
        #expect(try await Self.run(["pack", "render-voice", folder.path]).output.contains("0 rendered, 10 kept"))
        // A clue whose text changed is spoken again; the others are kept.
        let file = folder.appendingPathComponent("pack.json")
        let edited = try String(contentsOf: file, encoding: .utf8).replacingOccurrences(
            of: "It is the second largest city in Sweden.", with: "It is the second largest town in Sweden.")
        try edited.write(to: file, atomically: true, encoding: .utf8)
        #expect(try await Self.run(["pack", "render-voice", folder.path]).output.contains("1 rendered, 9 kept"))
        #expect(
            try await Self.run(["pack", "render-voice", "--force", folder.path]).output.contains("10 rendered, 0 kept"))

        // The intro is heard whole before the 10-point clue's line, in either language.
        for language in Language.allCases {
            let spoken = folder.appendingPathComponent("intro-\(language.rawValue)")
            _ = try Voice(program: "espeak-ng", language: language).render(
                [VoiceScript.Line(clip: AudioClip.intro, text: VoiceScript.introText(language))], into: spoken,
                force: true)
            let length = try #require(
                WAVDuration.milliseconds(ofFileAt: spoken.appendingPathComponent("intro.wav").path))
            #expect(
                length < Int64(Settings(packId: "p", language: language).introMs) - 200, "\(language): \(length) ms")
        }

        let broken = try await Self.run(["pack", "render-voice", "--espeak", "no-such-espeak", "--force", folder.path])
        #expect(broken.status != 0)
        #expect(broken.output.contains("no-such-espeak is not installed"))
    }
}
