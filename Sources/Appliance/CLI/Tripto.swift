import ArgumentParser
import Core

@main
struct Tripto: AsyncParsableCommand {
    static let version = "0.1.0"

    static let configuration = CommandConfiguration(
        commandName: "tripto",
        abstract: "Tripto box: an offline På Spåret-style travel quiz for the living room.",
        version: version,
        subcommands: [ServeCommand.self, PackCommand.self]
    )
}

struct PackCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pack",
        abstract: "Work with content packs.",
        subcommands: [ValidatePack.self]
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
