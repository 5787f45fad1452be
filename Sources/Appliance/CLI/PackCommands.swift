import ArgumentParser
import Core
import Foundation

struct PackCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pack",
        abstract: "Work with content packs.",
        subcommands: [ValidatePack.self, ShowPack.self, RenderVoice.self]
    )
}

struct ValidatePack: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check packs against the pack format and the content rules (docs/packs.md).",
        discussion: "Prints every problem as FILE: JSON-PATH: REASON. Exits with status 1 if there is any."
    )

    @Argument(help: "Pack folders (holding pack.json) or pack.json files.")
    var paths: [String]

    func run() throws {
        let (lines, ok) = PackFiles.validate(paths)
        for line in lines { print(line) }
        if !ok { throw ExitCode.failure }
    }
}

/// Reads a pack the way players meet it, for proofreading: each destination's clues from 10 to 2,
/// the reveal, and the followups with their answers.
struct ShowPack: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Print a pack's destinations as they are played: clues 10 → 2, reveal, followups."
    )

    @Argument(help: "A pack folder or pack.json file.")
    var path: String

    @Option(help: "Only this destination (its id).")
    var destination: String?

    func run() throws {
        let (_, pack, problems) = PackFiles.load(path)
        guard let pack else {
            for problem in problems { print(problem) }
            throw ExitCode.failure
        }
        let chosen = pack.destinations.filter { destination == nil || $0.id == destination }
        guard !chosen.isEmpty else {
            // A destination the pack does not have is not a usage error: status 1, like a bad pack.
            print("\(path): no destination \"\(destination ?? "")\" in \(pack.packId)")
            throw ExitCode.failure
        }
        print("\(pack.title) — \(pack.packId) (\(pack.language.rawValue)), \(pack.destinations.count) destinations")
        for (number, place) in chosen.enumerated() {
            print("\n\(number + 1). \(place.name), \(place.country) [\(place.id)]")
            for clue in place.clues { print("  \(String(clue.points).leftPadded(to: 2)) p  \(clue.text)") }
            print("  reveal \(place.revealText)")
            for (index, followup) in place.followups.enumerated() {
                print("  Q\(index + 1)  \(followup.question)")
                if let options = followup.options { print("       options: \(options.joined(separator: " | "))") }
                print("       answer: \(([followup.answer] + (followup.accepted ?? [])).joined(separator: " / "))")
            }
        }
    }
}

/// Renders the voice clips of packs with espeak-ng, in each pack's language, into `<pack>/voice/`.
struct RenderVoice: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render-voice",
        abstract: "Render a pack's voice clips (intro, clues, reveals, banter, followups) with espeak-ng.",
        discussion: """
            Writes <pack>/voice/<clip>.wav for every line the box can say. A clip is kept when it \
            exists and its text has not changed since it was rendered (voice/manifest.json), unless \
            --force is given. Needs espeak-ng on the PATH.
            """
    )

    @Argument(help: "Pack folders.")
    var paths: [String]

    @Flag(help: "Render every clip again, even those that are up to date.")
    var force = false

    @Option(help: "The espeak-ng program to run.")
    var espeak = "espeak-ng"

    func run() throws {
        var failed = false
        for path in paths {
            let (file, pack, problems) = PackFiles.load(path)
            guard let pack else {
                for problem in problems { print(problem) }
                failed = true
                continue
            }
            let folder = URL(fileURLWithPath: file).deletingLastPathComponent().appendingPathComponent("voice")
            let voice = Voice(program: espeak, language: pack.language)
            let outcome = try voice.render(VoiceScript.lines(for: pack), into: folder, force: force)
            print("\(pack.packId): \(outcome.rendered) rendered, \(outcome.kept) kept → \(folder.path)")
        }
        if failed { throw ExitCode.failure }
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
