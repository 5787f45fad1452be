import ArgumentParser
import Discovery

/// `tripto-console discover`: the boxes on the LAN, one per line.
struct DiscoverCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "discover",
        abstract: "List the Tripto boxes on the local network (mDNS, through avahi-daemon).",
        discussion: "Prints NAME<TAB>URL per box. Exits with status 1 if none is found."
    )

    @Option(help: "Seconds to wait for answers.")
    var timeout: Double = 3

    func run() async throws {
        let boxes: [DiscoveredBox]
        do {
            boxes = try await Browser.browse(timeout: .milliseconds(Int(timeout * 1000)))
        } catch {
            throw SeatRunner.fail(.unexpected("cannot look for boxes: \(error)"), status: 2)
        }
        for box in boxes { print("\(box.name)\t\(box.url)") }
        if boxes.isEmpty {
            print("no Tripto box found")
            throw ExitCode.failure
        }
    }
}
