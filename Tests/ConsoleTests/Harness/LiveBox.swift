import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A real `tripto serve` for the console to talk to: loopback, a free port, its own data folder.
final class LiveBox: @unchecked Sendable {
    private let folder: URL

    static let buildFolder: URL = {
        // The test bundle lives in the build folder next to both executables.
        var folder = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: folder.appendingPathComponent("tripto-console").path),
            folder.path != "/"
        {
            folder.deleteLastPathComponent()
        }
        return folder
    }()

    static var console: String { buildFolder.appendingPathComponent("tripto-console").path }
    static var repository: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
    }

    private var process: Process?
    private let arguments: [String]
    private(set) var port = 0
    var baseURL: String { "http://127.0.0.1:\(port)" }

    private init(arguments: [String]) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("tripto-console-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        self.arguments = arguments
    }

    /// A started box. `arguments` are added to `tripto serve`'s (e.g. `--kiosk`).
    static func started(arguments: [String] = []) async throws -> LiveBox {
        let box = try LiveBox(arguments: arguments)
        try await box.start()
        return box
    }

    /// Starts the box: on a free port the first time, on the same port (and data) after `kill()`.
    /// The waits for the box run off the test threads (see `offTheTestThreads`).
    func start() async throws { try await offTheTestThreads { try self.launch() } }

    private func launch() throws {
        let process = Process()
        process.executableURL = Self.buildFolder.appendingPathComponent("tripto")
        process.arguments =
            [
                "serve", "--host", "127.0.0.1", "--port", "\(port)", "--data-dir", folder.path,
                "--packs", Self.repository.appendingPathComponent("packs").path,
                "--no-qr", "--no-mdns", "--no-audio", "--log-level", "warning",
            ] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        self.process = process
        var text = ""
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline, !text.contains("listening on port ") {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("listening on port ") }),
            let port = Int(line.dropFirst("listening on port ".count))
        else { throw LiveFailure("the box did not start: \(text)") }
        self.port = port
    }

    /// SIGKILL: the box is gone without closing anything.
    func kill() async {
        guard let process, process.isRunning else { return }
        Foundation.kill(process.processIdentifier, SIGKILL)
        _ = try? await offTheTestThreads { process.waitUntilExit() }
    }

    deinit {
        if let process, process.isRunning { Foundation.kill(process.processIdentifier, SIGKILL) }
        try? FileManager.default.removeItem(at: folder)
    }

    /// A REST call; the reply's JSON object and status.
    func call(_ method: String, _ path: String, _ body: [String: Any]? = nil) async throws -> (Int, [String: Any]) {
        var request = URLRequest(url: URL(string: baseURL + path)!)
        request.httpMethod = method
        if let body { request.httpBody = try JSONSerialization.data(withJSONObject: body) }
        let (data, response) = try await URLSession.shared.data(for: request)
        let json = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
        return ((response as! HTTPURLResponse).statusCode, json)
    }

    /// A session made by a TV seat nobody takes, so the consoles can take every seat by its code.
    func session(settings: [String: Any]) async throws -> (code: String, joinUrl: String) {
        let (status, json) = try await call("POST", "/v1/sessions", ["role": "TV", "settings": settings])
        guard status == 201, let code = json["joinCode"] as? String, let url = json["joinUrl"] as? String else {
            throw LiveFailure("create answered \(status): \(json)")
        }
        return (code, url)
    }
}

struct LiveFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
