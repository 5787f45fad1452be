import ArgumentParser
import Foundation

/// `tripto doctor`: what is wrong with this box, in plain words with the fix for each.
struct DoctorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check the box: sound, mDNS, the port, the network, disk, database, packs, voice, clock, screen.",
        discussion: """
            Prints one line per check: ✓ when all is well, ✗ with the fix when something needs attention, \
            – when it cannot be checked here. Exits with status 0 when all is well, 1 when something needs \
            attention. Run it on the box itself, as root for an installed box (its data folder is the \
            service's).
            """
    )

    @Option(help: "The port the box serves on.")
    var port = 8080

    @Option(help: "The box's data folder (default: /var/lib/tripto if there, else ./data).")
    var dataDir: String?

    @Option(help: "The packs folder (default: the installed packs if there, else ./packs).")
    var packs: String?

    @Option(help: "The ALSA device the box plays through.")
    var audioDevice = "default"

    @Flag(help: "Play a one-second tone through the sound device.")
    var tone = false

    func run() async throws {
        let options = Doctor.Options(
            port: port,
            dataDirectory: dataDir ?? Self.firstExisting(["/var/lib/tripto"]) ?? "./data",
            packsDirectory: packs
                ?? Self.firstExisting(["/usr/share/tripto/packs", "/usr/local/share/tripto/packs"]) ?? "./packs",
            audioDevice: audioDevice, tone: tone)
        let findings = await Doctor(options: options).run()
        for finding in findings {
            let mark =
                switch finding.verdict {
                case .ok: "✓"
                case .attention: "✗"
                case .skipped: "–"
                }
            print("\(mark) \(finding.topic): \(finding.detail)")
            if let fix = finding.fix, finding.verdict == .attention { print("    fix: \(fix)") }
        }
        if findings.contains(where: { $0.verdict == .attention }) { throw ExitCode.failure }
    }

    private static func firstExisting(_ paths: [String]) -> String? {
        paths.first { FileManager.default.fileExists(atPath: $0) }
    }
}
