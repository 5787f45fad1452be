import ArgumentParser
import Foundation

/// `tripto admin-token`: prints the token that writing packs needs, made if the box has none yet.
struct AdminTokenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "admin-token",
        abstract: "Print the box's admin token, which writing packs on the box needs.",
        discussion: """
            The token is kept in <data-dir>/admin-token, readable by the box's user only, and made \
            at the first start. Give it as `Authorization: Bearer <token>` to PUT, GET and DELETE \
            /v1/packs/{packId} (docs/packs.md). Run it as the box's user (root for an installed box).
            """
    )

    @Option(help: "The box's data folder (default: /var/lib/tripto if there, else ./data).")
    var dataDir: String?

    func run() throws {
        let folder =
            dataDir ?? (FileManager.default.fileExists(atPath: "/var/lib/tripto") ? "/var/lib/tripto" : "./data")
        do {
            print(try AdminToken.ensure(in: folder))
        } catch {
            throw ValidationError("\(error)")
        }
    }
}
