import Foundation
import Testing

/// `tripto-console`'s command line: what `--help` and `--version` say, what is refused.
@Suite("tripto-console command line", .timeLimit(.minutes(5)))
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

    @Test("kiosk refuses an address that is not http(s) as a usage error, rather than waiting for it forever")
    func kioskBadURL() {
        #expect {
            try Self.console("kiosk", "--url", "127.0.0.1:8080")
        } throws: { error in
            "\(error)".contains("Not a box address: 127.0.0.1:8080 (expected http://HOST:PORT)")
        }
    }

    @Test("create offers host, tv and player; a player without --name is a usage error")
    func createRoles() throws {
        // As one line: the help is wrapped to the terminal's width.
        let help = try Self.console("create", "--help").split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(
            help.contains(
                "--as <role> host, tv or player (everyone plays, no host). (values: host, tv, player; default: host)"),
            "\(help)")
        #expect(help.contains("--name <name>"))
        #expect {
            try Self.console("create", "--as", "player", "--url", "http://127.0.0.1:1")
        } throws: { error in
            "\(error)".contains("a player needs --name")
        }
    }

    @Test("bots --help names every option as it works; a bad count, --lag or --skill is a usage error")
    func botsHelp() throws {
        let help = try Self.console("bots", "--help").split(whereSeparator: \.isWhitespace).joined(separator: " ")
        for part in [
            "USAGE: tripto-console bots <count> --code <code>", "--lag <MS[:JITTER]>", "--skill <LEVEL>",
            "--packs <DIR>", "--seed <seed>", "--url <url>", "PLAYER_LEAVE", "status 130",
        ] {
            #expect(help.contains(part), "\(part): \(help)")
        }
        for (arguments, message) in [
            (["bots", "0", "--code", "ABC234"], "between 1 and 50 bots, not 0"),
            (["bots", "3", "--code", "ABC234", "--lag", "fast"], "'fast' is invalid for '--lag <MS[:JITTER]>'"),
            (["bots", "3", "--code", "ABC234", "--skill", "2"], "--skill is from 0 to 1, not 2.0"),
            (["bots", "3"], "Missing expected argument '--code <code>'"),
        ] {
            #expect {
                try Command.run(LiveBox.console, arguments)
            } throws: { error in
                "\(error)".contains(message)
            }
        }
    }
}
