import ArgumentParser
import Discovery
import Foundation

/// Lists the Tripto boxes avahi-daemon can see on the LAN.
struct DiscoverCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "discover",
        abstract: "Find Tripto boxes on the local network (mDNS, through avahi-daemon).",
        discussion: "Prints one line per box: NAME<TAB>URL<TAB>version=… id=…. Exits with status 1 if none is found."
    )

    @Option(help: "Seconds to wait for answers.")
    var timeout: Double = 3

    func validate() throws {
        guard timeout > 0, timeout <= 60 else { throw ValidationError("--timeout must be between 0 and 60 seconds") }
    }

    func run() async throws {
        let boxes: [DiscoveredBox]
        do {
            boxes = try await Browser.browse(timeout: .milliseconds(Int(timeout * 1000)))
        } catch {
            print("tripto discover: \(error)")
            throw ExitCode(2)
        }
        for box in boxes {
            let details = ["version", "id"].compactMap { key in box.txt[key].map { "\(key)=\($0)" } }
            print("\(box.name)\t\(box.url)\t\(details.joined(separator: " "))")
        }
        if boxes.isEmpty {
            print("no Tripto box found")
            throw ExitCode.failure
        }
    }
}
