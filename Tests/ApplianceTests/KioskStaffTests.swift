import Core
import Foundation
import GRDB
import Testing

/// CONTRACT 4.4 and the rest of a venue's evening: the staff's PIN seat on the kiosk's game, a kicked
/// phone kept out under any name, and a kiosk that does not repeat itself.
@Suite("Kiosk staff and devices", .serialized, .timeLimit(.minutes(5)))
struct KioskStaffTests {
    /// A kiosk whose lobby waits long enough for the test to act in it.
    static let patientKiosk = [
        "--kiosk", "--staff-pin", "4321", "--kiosk-lobby-seconds", "600", "--kiosk-settings",
        #"{"destinationsCount":1,"followupsPerDestination":1,"introMs":0}"#,
    ]

    private func join(
        _ http: HTTP, _ kiosk: HTTP.Reply, _ body: [String: Any], cookie: String? = nil
    ) async throws -> HTTP.Reply {
        var fields = body
        fields["joinCode"] = kiosk.string("joinCode")
        return try await http.call(
            "POST", "/v1/sessions/\(kiosk.string("sessionId"))/join", json: fields,
            headers: cookie.map { ["Cookie": $0] } ?? [:])
    }

    @Test("the staff PIN gives the host's seat; none or a wrong one is 403, and past five wrong a minute 429")
    func staffPin() async throws {
        let box = try BoxProcess(arguments: Self.patientKiosk)
        try await box.start()
        defer { box.terminate() }
        let http = HTTP(base: box.baseURL)
        let kiosk = try await http.get("/v1/kiosk")
        let none = try await join(http, kiosk, ["role": "HOST"])
        #expect(none.status == 403 && none.error == "FORBIDDEN", "\(none.text)")

        let staff = try await join(http, kiosk, ["role": "HOST", "staffPin": "4321"])
        #expect(staff.status == 201 && staff.string("role") == "HOST", "\(staff.text)")
        let host = TestSocket(url: box.webSocketURL, token: staff.string("playerAuthToken"))
        let welcome = try await host.expect("WELCOME")
        guard case .welcome(let seated) = welcome.event else { throw HarnessError.unexpected("no welcome") }
        #expect(seated.role == .host && seated.projection.settings.autoAdvance, "the game keeps its own pacing")

        // The staff's controls: a guest is sent away, and cannot come back from that phone.
        let troll = try await join(http, kiosk, ["name": "Troll"])
        let cookie = try #require(troll.headers["set-cookie"]?.split(separator: ";").first.map(String.init))
        #expect(cookie.hasPrefix("tripto_device="))
        #expect(troll.headers["set-cookie"]?.contains("HttpOnly") == true)
        let again = try await join(http, kiosk, ["name": "Troll again"], cookie: cookie)
        #expect(again.status == 409 || again.status == 201, "the same phone may seat a second player before a kick")
        // Kicked while connected: a player removed while away (a phone asleep) may come back.
        let trollPhone = TestSocket(url: box.webSocketURL, token: troll.string("playerAuthToken"))
        try await trollPhone.expect("WELCOME")
        try await host.expect("LOBBY_UPDATED") { message in
            let players = message.payloadObject["players"] as? [[String: Any]] ?? []
            return players.contains { $0["name"] as? String == "Troll" && $0["isConnected"] as? Bool == true }
        }
        host.send(.hostKick(.init(playerId: troll.string("playerId"))))
        try await host.expect("PLAYER_LEFT") { $0.payloadObject["reason"] as? String == "kicked" }
        let renamed = try await join(http, kiosk, ["name": "Nice Person"], cookie: cookie)
        #expect(renamed.status == 403 && renamed.error == "FORBIDDEN", "\(renamed.text)")
        let otherPhone = try await join(http, kiosk, ["name": "Nice Person"])
        #expect(otherPhone.status == 201, "another phone is welcome")

        // A wrong PIN, five times in a minute, then 429 (even for the right PIN) with Retry-After.
        for _ in 1...5 {
            let wrong = try await join(http, kiosk, ["role": "HOST", "staffPin": "1234"])
            #expect(wrong.status == 403 && wrong.error == "FORBIDDEN")
        }
        let throttled = try await join(http, kiosk, ["role": "HOST", "staffPin": "4321"])
        #expect(throttled.status == 429 && throttled.error == "RATE_LIMITED", "\(throttled.text)")
        #expect(Int(throttled.headers["retry-after"] ?? "") ?? 0 > 0)
        host.close()
    }

    @Test("the staff pause, resume and end the kiosk's game early, and choose the next one's pack")
    func staffControls() async throws {
        let box = try BoxProcess(arguments: [
            "--kiosk", "--staff-pin", "4321", "--kiosk-lobby-seconds", "1", "--kiosk-end-seconds", "1",
            "--kiosk-settings", #"{"destinationsCount":1,"followupsPerDestination":1,"introMs":0,"finaleMs":1000}"#,
        ])
        try await box.start()
        defer { box.terminate() }
        let http = HTTP(base: box.baseURL)
        let kiosk = try await http.get("/v1/kiosk")
        let staff = try await join(http, kiosk, ["role": "HOST", "staffPin": "4321"])
        let host = TestSocket(url: box.webSocketURL, token: staff.string("playerAuthToken"))
        try await host.expect("WELCOME")
        // The next game's pack, in the lobby (before a guest is here, so the game waits): one the box
        // has, or an error.
        host.send(.hostSetPack(.init(packId: "en-europe")))
        try await host.expectSnapshot { $0.settings.packId == "en-europe" && $0.settings.language == .en }
        host.send(.hostSetPack(.init(packId: "no-such-pack")))
        try await host.expect("ERROR")
        let guest = try await join(http, kiosk, ["name": "Guest"])
        let player = TestSocket(url: box.webSocketURL, token: guest.string("playerAuthToken"))
        try await player.expect("WELCOME")
        // The kiosk starts the game by itself, staff or not.
        try await player.expectSnapshot(timeout: .seconds(15)) { $0.phase == .clueLevel }
        host.send(.hostPause)
        try await player.expectSnapshot { $0.paused }
        host.send(.hostResume)
        try await player.expectSnapshot { !$0.paused && $0.phase == .clueLevel }
        // Ended early: the finale with the points as they stand, then the kiosk's next lobby.
        host.send(.hostEndGame)
        try await player.expect("FINAL_RESULTS_PRESENT")
        try await player.expectSnapshot(timeout: .seconds(15)) {
            $0.phase == .lobby && $0.settings.packId == "en-europe"
        }
        player.close()
        host.close()
    }

    @Test("without --staff-pin, or without --kiosk, there is no staff seat")
    func noStaffPin() async throws {
        let box = try BoxProcess(arguments: ["--kiosk", "--kiosk-lobby-seconds", "600"])
        try await box.start()
        defer { box.terminate() }
        let http = HTTP(base: box.baseURL)
        let kiosk = try await http.get("/v1/kiosk")
        let tried = try await join(http, kiosk, ["role": "HOST", "staffPin": "4321"])
        #expect(tried.status == 403 && tried.error == "FORBIDDEN")
        let serve = try await PackCommandTests.run(["serve", "--staff-pin", "4321", "--port", "0"])
        #expect(serve.status == 64 && serve.output.contains("--staff-pin is for a kiosk"), "\(serve.output)")
        let short = try await PackCommandTests.run(["serve", "--kiosk", "--staff-pin", "12"])
        #expect(short.status == 64 && short.output.contains("4–32"), "\(short.output)")
    }

    @Test("four kiosk games in a row play the mix of the box's packs and never repeat a destination")
    func rotation() async throws {
        let box = try BoxProcess(arguments: KioskTests.fastKiosk)
        try await box.start()
        defer { box.terminate() }
        let http = HTTP(base: box.baseURL)
        let kiosk = try await http.get("/v1/kiosk")
        let guest = try await join(http, kiosk, ["name": "Regular"])
        let player = TestSocket(url: box.webSocketURL, token: guest.string("playerAuthToken"))
        let welcome = try await player.expect("WELCOME")
        guard case .welcome(let seated) = welcome.event else { throw HarnessError.unexpected("no welcome") }
        #expect(seated.projection.settings.packId == "mix-sv", "a kiosk with no pack named plays its language's mix")
        for _ in 1...4 {
            try await player.expectSnapshot(timeout: .seconds(20)) { $0.phase == .clueLevel }
            try await player.expectSnapshot(timeout: .seconds(30)) { $0.phase == .lobby }
        }
        let database = try DatabaseQueue(path: box.databasePath)
        let played = try database.read { try Row.fetchAll($0, sql: "SELECT packId, destinationId FROM played") }
        #expect(played.count == 4, "four games of one destination, none twice: \(played)")
        #expect(played.allSatisfy { ($0["packId"] as String).hasPrefix("sv-") })
        player.close()
    }
}
