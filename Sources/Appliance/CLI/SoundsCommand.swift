import ArgumentParser
import Foundation

struct SoundsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sounds",
        abstract: "The box's own music beds and effects.",
        subcommands: [ExportSounds.self]
    )
}

/// Writes the composed beds and effects out as files, for listening to them, looking at them, and
/// for the record of where every sound comes from.
struct ExportSounds: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write every music bed and effect as a 48 kHz stereo WAV, with credits.json (licence metadata).",
        discussion: "The sounds are composed in code, the same way the box composes them when it starts."
    )

    @Argument(help: "Folder to write into (created if missing).")
    var folder: String

    func run() throws {
        let library = SoundLibrary.compose()
        try library.write(to: URL(fileURLWithPath: folder))
        for credit in library.credits {
            let seconds = String(format: "%.1f", Double(credit.durationMs) / 1000)
            print("\(credit.id).wav  \(seconds) s  \(credit.kind)\(credit.loops ? " (loop)" : "")  \(credit.title)")
        }
        print("credits.json")
    }
}
