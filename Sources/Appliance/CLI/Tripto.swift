import ArgumentParser
import Core

@main
struct Tripto: AsyncParsableCommand {
    static let version = triptoVersion

    static let configuration = CommandConfiguration(
        commandName: "tripto",
        abstract: "Tripto box: an offline På Spåret-style travel quiz for the living room.",
        version: version,
        subcommands: [
            ServeCommand.self, DoctorCommand.self, PackCommand.self, SoundsCommand.self, DiscoverCommand.self,
            AdminTokenCommand.self,
        ]
    )

    /// Tasks run on the event loops (`EventLoopExecutor`) from the start; `serve` logs whether they do.
    static func main() async {
        _ = EventLoopExecutor.installation
        await main(nil)
    }
}
