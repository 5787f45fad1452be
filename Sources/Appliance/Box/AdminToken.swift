import Foundation

/// The box's admin token (CONTRACT 4.3): what writing packs needs. Made at the first start and kept in
/// `<data-dir>/admin-token`, readable by the box's user only; printed in the start-up banner and by
/// `tripto admin-token`. Players' phones never have it.
enum AdminToken {
    static let fileName = "admin-token"

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// The token in `dataDirectory`, made (mode 0600) if there is none yet.
    static func ensure(in dataDirectory: String) throws -> String {
        let path = (dataDirectory as NSString).appendingPathComponent(fileName)
        if let token = read(path) { return token }
        try FileManager.default.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true)
        let token = Secrets.token()
        // Created exclusively: two boxes starting on one folder keep whichever token came first.
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            if errno == EEXIST, let token = read(path) { return token }
            throw Failure(description: "cannot write \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        let line = Array((token + "\n").utf8)
        guard write(descriptor, line, line.count) == line.count, fsync(descriptor) == 0 else {
            throw Failure(description: "cannot write \(path): \(String(cString: strerror(errno)))")
        }
        return token
    }

    private static func read(_ path: String) -> String? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        let token = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return token.isEmpty ? nil : token
    }
}
