import Foundation
import Testing

/// `tripto-console`'s command line: what `--help` and `--version` say, what is refused.
@Suite("tripto-console command line")
struct CommandLineTests {
    static func console(_ arguments: String...) throws -> String {
        try Command.run(LiveBox.console, arguments)
    }

    @Test("--version says tripto's version")
    func version() throws {
        let tripto = try Command.run(LiveBox.buildFolder.appendingPathComponent("tripto").path, ["--version"])
        #expect(try Self.console("--version") == tripto)
        #expect(!tripto.isEmpty)
    }

    @Test("create offers only host and tv, and refuses player as a usage error")
    func createRoles() throws {
        // As one line: the help is wrapped to the terminal's width.
        let help = try Self.console("create", "--help").split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(help.contains("--as <role> host or tv (players join a session). (values: host, tv; default: host)"))
        #expect(!help.contains("player,"), "\(help)")
        #expect {
            try Self.console("create", "--as", "player", "--url", "http://127.0.0.1:1")
        } throws: { error in
            "\(error)".contains("'player' is invalid for '--as <role>'")
        }
    }
}
