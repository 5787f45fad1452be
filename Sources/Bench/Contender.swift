import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A server the tables play against: the release `tripto serve`, or the Python broadcast baseline.
enum Contender: String, Codable, Sendable, CaseIterable {
    case tripto
    case baseline
}

enum BenchError: Error, CustomStringConvertible {
    case didNotStart(String)
    case request(String)
    case timeout(String)

    var description: String {
        switch self {
        case .didNotStart(let why): "server did not start: \(why)"
        case .request(let why): "request failed: \(why)"
        case .timeout(let what): "timed out: \(what)"
        }
    }
}

/// A started server: where to reach it, how long it took to answer, and its /proc gauge.
final class RunningServer: @unchecked Sendable {
    let contender: Contender
    let process: Process
    let restBase: String
    /// Where `/ws` is, on 127.0.0.1.
    let socketPort: Int
    /// From spawning the process to the first 200 on /healthz.
    let coldStartMs: Double
    let gauge: ProcessGauge
    private let dataDirectory: URL

    struct Launch {
        var tripto: String
        var packs: String
        var python: String
        var baselineScript: String
        var maxPlayers: Int
        /// Optimisations the box runs without (its `TRIPTO_DISABLE`; the load generator keeps all).
        var disabled: [String] = []
    }

    init(_ contender: Contender, launch: Launch) async throws {
        self.contender = contender
        dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("tripto-bench-\(UUID())")
        try FileManager.default.createDirectory(at: dataDirectory, withIntermediateDirectories: true)
        let process = Process()
        switch contender {
        case .tripto:
            process.executableURL = URL(fileURLWithPath: launch.tripto)
            process.arguments = [
                "serve", "--host", "127.0.0.1", "--port", "0", "--data-dir", dataDirectory.path, "--packs",
                launch.packs, "--public-url", "http://127.0.0.1:0", "--no-qr", "--no-mdns", "--no-audio",
                "--log-level", "warning", "--max-players", "\(launch.maxPlayers)",
            ]
            var environment = ProcessInfo.processInfo.environment
            environment["TRIPTO_DISABLE"] = launch.disabled.isEmpty ? nil : launch.disabled.joined(separator: ",")
            process.environment = environment
        case .baseline:
            process.executableURL = URL(fileURLWithPath: launch.python)
            process.arguments = [launch.baselineScript]
        }
        let output = Pipe()
        process.standardOutput = output
        let log = dataDirectory.appendingPathComponent("stderr.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        process.standardError = try FileHandle(forWritingTo: log)
        let spawned = WallClock.nowMs()
        try process.run()
        self.process = process
        gauge = ProcessGauge(pid: process.processIdentifier)

        let ports = try await Self.readPorts(from: output.fileHandleForReading, process: process)
        restBase = "http://127.0.0.1:\(ports.rest)"
        socketPort = ports.socket
        var answered: Double?
        let deadline = spawned + 20_000
        while answered == nil, WallClock.nowMs() < deadline {
            if (try? await REST.get(restBase + "/healthz")) == 200 {
                answered = WallClock.nowMs()
            } else {
                try await Task.sleep(for: .milliseconds(2))
            }
        }
        guard let answered else { throw BenchError.didNotStart("no 200 on /healthz within 20 s") }
        coldStartMs = answered - spawned
    }

    /// The port lines both servers print: tripto's "listening on port N", the baseline's
    /// "listening on port N rest M" (its REST endpoints sit on a second port).
    private static func readPorts(from handle: FileHandle, process: Process) async throws -> (socket: Int, rest: Int) {
        try await Task.detached {
            var text = ""
            let deadline = Date().addingTimeInterval(20)
            while Date() < deadline {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                text += String(decoding: chunk, as: UTF8.self)
                guard let range = text.range(of: #"listening on port \d+( rest \d+)?"#, options: .regularExpression)
                else { continue }
                let numbers = text[range].split(separator: " ").compactMap { Int($0) }
                return (numbers[0], numbers.count > 1 ? numbers[1] : numbers[0])
            }
            throw BenchError.didNotStart(text.isEmpty ? "no output" : text)
        }.value
    }

    /// SIGTERM, and SIGKILL if it is still there after 5 s. Not `waitUntilExit`: Foundation's
    /// Process sometimes never notices a child's exit, and a benchmark must not hang on that.
    func stop() {
        let pid = process.processIdentifier
        if process.isRunning {
            kill(pid, SIGTERM)
            var waited = 0
            while process.isRunning, waited < 100 {
                usleep(50_000)
                waited += 1
            }
            if process.isRunning { kill(pid, SIGKILL) }
        }
        try? FileManager.default.removeItem(at: dataDirectory)
    }
}

/// The few REST calls the tables make, over URLSession.
enum REST {
    static let session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = 64
        configuration.timeoutIntervalForRequest = 30
        return URLSession(configuration: configuration)
    }()

    static func get(_ url: String) async throws -> Int {
        let (_, response) = try await session.data(from: URL(string: url)!)
        return (response as? HTTPURLResponse)?.statusCode ?? 0
    }

    /// POSTs `body` as JSON; the decoded answer and the round trip in milliseconds.
    static func post<Answer: Decodable>(
        _ url: String, _ body: [String: any Sendable], as: Answer.Type
    ) async throws -> (Answer, Double) {
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try JSONSerialization.data(withJSONObject: body)
        let started = WallClock.nowMs()
        let (data, response) = try await session.data(for: request)
        let elapsed = WallClock.nowMs() - started
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard (200..<300).contains(status) else {
            throw BenchError.request("\(url) → \(status) \(String(decoding: data, as: UTF8.self))")
        }
        return (try JSONDecoder().decode(Answer.self, from: data), elapsed)
    }
}
