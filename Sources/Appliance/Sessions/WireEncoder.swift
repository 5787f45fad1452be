import Core
import Foundation

/// Server messages as the text frames that go on the socket.
enum WireEncoder {
    static func text(_ message: ServerMessage) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .withoutEscapingSlashes
        // Our own plain Codable types always encode.
        return String(decoding: try! encoder.encode(message), as: UTF8.self)
    }
}
