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
            /v1/packs/{packId}, and POST /v1/packs/{packId}/check (docs/packs.md). Run it as the box's user (root for an installed box).

            With --link it prints the pack studio's address instead, with the token in it \
            (http://<the box's LAN address>:8080/studio#token=…): open it once on the phone or \
            laptop that will write packs, which keeps the token (docs/web.md, "The pack studio").
            """
    )

    @Option(help: "The box's data folder (default: /var/lib/tripto if there, else ./data).")
    var dataDir: String?

    @Flag(help: "Print the pack studio's address with the token in it, rather than the token.")
    var link = false

    @Option(help: "With --link: the port the box serves on.")
    var port = 8080

    @Option(help: "With --link: the address phones reach the box at, as given to `tripto serve --public-url`.")
    var publicUrl: String?

    func run() throws {
        let folder =
            dataDir ?? (FileManager.default.fileExists(atPath: "/var/lib/tripto") ? "/var/lib/tripto" : "./data")
        let token: String
        do {
            token = try AdminToken.ensure(in: folder)
        } catch {
            throw ValidationError("\(error)")
        }
        guard link else {
            print(token)
            return
        }
        print(StudioLink.url(base: PublicAddress(configured: publicUrl, port: port).baseURL, token: token))
    }
}

/// The pack studio's address with the admin token in it, as the banner and `tripto admin-token --link`
/// print it. The token is in the fragment, which the browser never sends: the page keeps it and takes
/// it out of the address bar.
enum StudioLink {
    static func url(base: String, token: String) -> String { "\(base)/studio#token=\(token)" }
}
