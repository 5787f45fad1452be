import ArgumentParser
import Discovery
import Foundation

/// `tripto-console discover`: the boxes on the LAN, one per line.
struct DiscoverCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "discover",
        abstract: "List the Tripto boxes on the local network (mDNS, through avahi-daemon).",
        discussion: """
            Prints NAME<TAB>URL per box. Exits with status 1 if none is found, or if it cannot look \
            (avahi-daemon not running).
            """
    )

    @Option(help: "Seconds to wait for answers.")
    var timeout: Double = 3

    func run() async throws {
        let boxes: [DiscoveredBox]
        do {
            boxes = try await Browser.browse(timeout: .milliseconds(Int(timeout * 1000)))
        } catch {
            // No box found either way: the status is the same as for none.
            FileHandle.standardError.write(
                Data("tripto-console: cannot look for boxes on the network: \(error)\n".utf8))
            throw ExitCode.failure
        }
        for box in boxes { print("\(box.name)\t\(box.url)") }
        if boxes.isEmpty {
            print("no Tripto box found")
            throw ExitCode.failure
        }
    }
}
