import Foundation
import Testing

/// What `tripto serve` says when it cannot start: in words that name what is wrong, with status 1,
/// and without touching a box that already runs.
@Suite("Starting the box", .serialized, .timeLimit(.minutes(5)))
struct StartupTests {
    /// What `tripto serve` printed as it gave up ("" if it started and ran its 20 s, which these
    /// tests do not expect).
    private func refusal(_ arguments: [String]) async throws -> String {
        do {
            try await Shell.run(
                "/usr/bin/timeout",
                ["20", PackCommandTests.binary.path, "serve", "--no-qr", "--no-mdns", "--no-audio", "--packs"]
                    + [BoxProcess.repositoryRoot.path + "/packs"] + arguments)
            return ""
        } catch HarnessError.unexpected(let text) {
            return text
        }
    }

    @Test(
        "a second box on a data folder in use, a folder that is a file, a damaged database, unknown settings, a port in use"
    )
    func refusals() async throws {
        let box = try BoxProcess()
        try await box.start()
        defer { box.terminate() }
        let pid = try #require(box.process?.processIdentifier)

        let second = try await refusal(["--port", "0", "--data-dir", box.dataDirectory.path])
        #expect(second.contains("the data folder \(box.dataDirectory.path) is in use by another tripto (PID \(pid))"))
        // The first box is untouched: it still answers, and its sessions are its own.
        #expect(try await HTTP(base: box.baseURL).post("/v1/sessions").status == 201)

        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("tripto-start-\(UUID())")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let file = scratch.appendingPathComponent("a-file")
        try Data("x".utf8).write(to: file)
        #expect(
            try await refusal(["--port", "0", "--data-dir", file.path]).contains(
                "the data folder \(file.path) is a file, not a folder"))

        let damaged = scratch.appendingPathComponent("damaged")
        try FileManager.default.createDirectory(at: damaged, withIntermediateDirectories: true)
        try Data(repeating: 0x41, count: 4096).write(to: damaged.appendingPathComponent("tripto.sqlite"))
        #expect(
            try await refusal(["--port", "0", "--data-dir", damaged.path]).contains(
                "cannot open the database \(damaged.path)/tripto.sqlite"))

        // Settings that name what is not there are refused at the start, not met later by a guest.
        let other = scratch.appendingPathComponent("other").path
        #expect(
            try await refusal(["--port", "0", "--data-dir", other, "--default-pack", "nope"]).contains(
                "--default-pack nope: no valid pack of that id"))
        #expect(
            try await refusal([
                "--port", "0", "--data-dir", other, "--kiosk", "--kiosk-settings", #"{"destinationsCount":99}"#,
            ]).contains("--kiosk-settings: destinationsCount"))

        let busyPort = try await refusal(["--host", "127.0.0.1", "--port", "\(box.port)", "--data-dir", other])
        #expect(busyPort.contains("port \(box.port) is already in use on 127.0.0.1"), "\(busyPort)")
    }
}
