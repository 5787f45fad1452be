import Foundation
import Testing

/// `/healthz` tells the truth: "degraded", with the reason in words, when saving fails, when the
/// sound device cannot be opened, or when the box is not announced; "ok" once all works again.
@Suite("Health", .timeLimit(.minutes(5)))
struct HealthTests {
    private func health(_ box: BoxProcess) async throws -> (status: String, problems: [String: String]) {
        let reply = try await HTTP(base: box.baseURL).get("/healthz")
        #expect(reply.status == 200)
        var problems: [String: String] = [:]
        for problem in reply.json["problems"] as? [[String: Any]] ?? [] {
            problems[problem["part"] as? String ?? "?"] = problem["message"] as? String
        }
        return (reply.string("status"), problems)
    }

    /// /healthz once it names a problem with `part` (a part reports on its own thread), or as it is
    /// after `seconds`.
    private func health(
        _ box: BoxProcess, reporting part: String, within seconds: Double
    ) async throws -> (status: String, problems: [String: String]) {
        var answer = try await health(box)
        let deadline = Date().addingTimeInterval(seconds)
        while answer.problems[part] == nil, Date() < deadline {
            try await Task.sleep(for: .milliseconds(100))
            answer = try await health(box)
        }
        return answer
    }

    @Test(
        "a full disk: every save fails, /healthz says why; space freed, the next save works and it says ok",
        .enabled(if: getuid() == 0, "needs root to mount a small file system"))
    func fullDisk() async throws {
        let box = try BoxProcess()
        let folder = box.dataDirectory.path
        try await Shell.run("/bin/mount", ["-t", "tmpfs", "-o", "size=48m", "tmpfs", folder])
        defer { _ = try? Shell.run("/bin/umount", ["-l", folder]) }
        try await box.start()
        defer { box.terminate() }
        let http = HTTP(base: box.baseURL)
        #expect(try await http.post("/v1/sessions").status == 201)
        #expect(try await health(box).status == "ok")

        // `dd` stops, failing, when the file system is full.
        _ = try? await Shell.run("/bin/sh", ["-c", "dd if=/dev/zero of='\(folder)/filler' bs=64k"])
        let refused = try await http.post("/v1/sessions")
        #expect(refused.status == 503)
        #expect(refused.error == "STORAGE_UNAVAILABLE")
        let full = try await health(box)
        #expect(full.status == "degraded")
        #expect(full.problems["storage"] == "The box's disk is full: the game cannot be saved", "\(full.problems)")
        #expect(full.problems["disk"]?.contains("nearly full") == true, "\(full.problems)")

        try FileManager.default.removeItem(atPath: folder + "/filler")
        #expect(try await http.post("/v1/sessions").status == 201)
        let freed = try await health(box)
        #expect(freed.status == "ok", "\(freed.problems)")
    }

    @Test("a sound device that cannot be opened makes the box degraded; --no-audio does not")
    func noSound() async throws {
        let box = try BoxProcess(arguments: ["--audio-device", "hw:42,0"], audio: true)
        try await box.start()
        defer { box.terminate() }
        let answer = try await health(box, reporting: "sound", within: 20)
        #expect(answer.status == "degraded")
        #expect(answer.problems["sound"]?.contains("cannot open its sound device hw:42,0") == true, "\(answer)")

        let quiet = try BoxProcess()
        try await quiet.start()
        defer { quiet.terminate() }
        #expect(try await health(quiet).status == "ok")
    }

    @Test("a box that cannot announce itself says so after a few seconds")
    func notAnnounced() async throws {
        // No system bus, so no avahi-daemon to talk to.
        let box = try BoxProcess(
            environment: ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/nonexistent/tripto-test-bus"], announce: true)
        try await box.start()
        defer { box.terminate() }
        let answer = try await health(box, reporting: "mdns", within: 20)
        #expect(answer.status == "degraded")
        #expect(answer.problems["mdns"]?.contains("not announced on the network") == true, "\(answer)")
    }
}
