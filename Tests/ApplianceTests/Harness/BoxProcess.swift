import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The built `tripto serve`, started on a free loopback port with its own data folder. Tests stop it
/// by PID (SIGTERM, or SIGKILL to pull the plug) and may start it again on the same data.
///
/// Starting and stopping wait for the process on a dispatch thread (`offTheTestThreads`): the
/// tests share a pool of as many threads as the machine has cores, and one held by a blocking wait
/// starves every other test's sockets and timers (on 2 cores, waits of many seconds in a full run).
final class BoxProcess: @unchecked Sendable {
    let dataDirectory: URL
    let packsDirectory: String
    private(set) var process: Process?
    private(set) var port = 0
    /// What the box printed on stdout as it started: the banner.
    private(set) var banner = ""
    private var output = Pipe()
    var extraArguments: [String]
    let environment: [String: String]
    let announce: Bool
    let audio: Bool
    let openFiles: Int?
    let fixedLinks: Bool

    static var repositoryRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
            .deletingLastPathComponent()
    }

    /// `announce`: let the box announce itself by mDNS (only the Discovery tests, on their private bus).
    /// `audio`: let the box open its sound output (only the audio tests, into a file).
    /// `openFiles`: the soft limit on open files the box is started with (`ulimit -Sn`).
    /// `fixedLinks`: links name 127.0.0.1:0 (`--public-url`), whatever the box listens on.
    init(
        packs: String? = nil, arguments: [String] = [], environment: [String: String] = [:], announce: Bool = false,
        audio: Bool = false, openFiles: Int? = nil, fixedLinks: Bool = true
    ) throws {
        dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "tripto-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dataDirectory, withIntermediateDirectories: true)
        packsDirectory = packs ?? Self.repositoryRoot.appendingPathComponent("packs").path
        extraArguments = arguments
        self.environment = environment
        self.announce = announce
        self.audio = audio
        self.openFiles = openFiles
        self.fixedLinks = fixedLinks
    }

    /// What the box wrote to stderr (its log).
    var log: String {
        (try? String(contentsOf: dataDirectory.appendingPathComponent("stderr.log"), encoding: .utf8)) ?? ""
    }

    var baseURL: String { "http://127.0.0.1:\(port)" }
    var webSocketURL: String { "ws://127.0.0.1:\(port)/ws" }
    var databasePath: String { dataDirectory.appendingPathComponent("tripto.sqlite").path }

    /// Starts the box and waits until it prints its port.
    func start() async throws { try await offTheTestThreads { try self.launch() } }

    private func launch() throws {
        let process = Process()
        let arguments =
            [
                "serve", "--host", "127.0.0.1", "--port", "0", "--data-dir", dataDirectory.path, "--packs",
                packsDirectory,
                "--no-qr", "--log-level", "warning",
            ] + (fixedLinks ? ["--public-url", "http://127.0.0.1:0"] : []) + (announce ? [] : ["--no-mdns"])
            + (audio ? [] : ["--no-audio"]) + extraArguments
        if let openFiles {
            // The shell sets the limit and becomes the box (same PID).
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments =
                ["-c", "ulimit -Sn \(openFiles) && exec \"$0\" \"$@\"", PackCommandTests.binary.path] + arguments
        } else {
            process.executableURL = PackCommandTests.binary
            process.arguments = arguments
        }
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        output = Pipe()
        process.standardOutput = output
        let logFile = dataDirectory.appendingPathComponent("stderr.log")
        if !FileManager.default.fileExists(atPath: logFile.path) {
            _ = FileManager.default.createFile(atPath: logFile.path, contents: nil)
        }
        let log = try FileHandle(forWritingTo: logFile)
        try log.seekToEnd()
        process.standardError = log
        try process.run()
        self.process = process
        let handle = output.fileHandleForReading
        var text = ""
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            let chunk = handle.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
            if let range = text.range(of: #"listening on port (\d+)"#, options: .regularExpression) {
                port = Int(text[range].split(separator: " ").last!)!
                banner = text
                return
            }
        }
        throw HarnessError.didNotStart(text)
    }

    /// SIGTERM and wait: the graceful path.
    func stop() async { await signalAndWait(SIGTERM) }

    /// SIGKILL and wait: the plug is pulled.
    func kill() async { await signalAndWait(SIGKILL) }

    /// SIGTERM without waiting, for a test's `defer`: the box goes on its own (and `deinit` makes sure).
    func terminate() { signal(SIGTERM) }

    private func signalAndWait(_ signal: Int32) async {
        guard let process, process.isRunning else { return }
        self.signal(signal)
        _ = try? await offTheTestThreads { process.waitUntilExit() }
    }

    private func signal(_ signal: Int32) {
        guard let process, process.isRunning else { return }
        Foundation.kill(process.processIdentifier, signal)
    }

    /// The box's resident memory in KiB, from /proc: now (`VmRSS`) or at its peak so far (`VmHWM`).
    func memoryKiB(_ field: String = "VmRSS") throws -> Int { try status(field) }

    /// A number from the box's `/proc/<pid>/status`: `VmRSS`, `FDSize`…
    func status(_ field: String) throws -> Int {
        guard let process,
            let status = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("\(field):") }),
            let value = Int(line.split(whereSeparator: \.isWhitespace).dropFirst().first ?? "")
        else { throw HarnessError.unexpected("no \(field) for the box") }
        return value
    }

    var exitStatus: Int32? { process.flatMap { $0.isRunning ? nil : $0.terminationStatus } }

    deinit {
        signal(SIGKILL)
        try? FileManager.default.removeItem(at: dataDirectory)
    }
}

enum HarnessError: Error {
    case didNotStart(String)
    case timeout(String)
    case unexpected(String)
}

/// Plain HTTP calls to the box, answering status and JSON.
struct HTTP {
    let base: String

    /// Keeps no cookies: each call is a new phone unless it sends the box's device cookie itself.
    static let session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .never
        configuration.httpCookieStorage = nil
        return URLSession(configuration: configuration)
    }()

    struct Reply: @unchecked Sendable {
        var status: Int
        var body: Data
        var headers: [String: String]
        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:] }
        var text: String { String(decoding: body, as: UTF8.self) }
        var error: String? { json["error"] as? String }
        func string(_ key: String) -> String { json[key] as? String ?? "" }
    }

    func call(
        _ method: String, _ path: String, json: Any? = nil, raw: Data? = nil, headers: [String: String] = [:]
    ) async throws -> Reply {
        var request = URLRequest(url: URL(string: base + path)!)
        request.httpMethod = method
        if let json {
            request.httpBody = try JSONSerialization.data(withJSONObject: json)
        } else if let raw {
            request.httpBody = raw
        }
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await Self.session.data(for: request)
        let http = response as! HTTPURLResponse
        var fields: [String: String] = [:]
        for (name, value) in http.allHeaderFields { fields["\(name)".lowercased()] = "\(value)" }
        return Reply(status: http.statusCode, body: data, headers: fields)
    }

    func get(_ path: String) async throws -> Reply { try await call("GET", path) }
    func post(_ path: String, _ json: Any? = nil) async throws -> Reply { try await call("POST", path, json: json) }
}
