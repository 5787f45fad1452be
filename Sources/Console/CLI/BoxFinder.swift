import Discovery
import Foundation

/// Finds the box to use on the LAN: one box is used without asking; with several, a person at a
/// terminal picks one, anyone else must say which with --url.
enum BoxFinder {
    static func find(timeout: Double) async throws(ConsoleError) -> String {
        let boxes: [DiscoveredBox]
        do {
            boxes = try await Browser.browse(timeout: .milliseconds(Int(timeout * 1000)))
        } catch {
            // Like finding none: the way out is the same, --url.
            throw .cannotLook("\(error)")
        }
        switch boxes.count {
        case 0: throw .noBox
        case 1: return boxes[0].url
        default:
            let list = boxes.map { "\($0.name)  \($0.url)" }
            guard isatty(STDIN_FILENO) == 1 else { throw .severalBoxes(list) }
            print("Several Tripto boxes answered:")
            for (offset, line) in list.enumerated() { print("  \(offset + 1). \(line)") }
            print("Which one? ", terminator: "")
            guard let answer = readLine(), let number = Int(answer), boxes.indices.contains(number - 1) else {
                throw .severalBoxes(list)
            }
            return boxes[number - 1].url
        }
    }
}
