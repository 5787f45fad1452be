import Core
import Foundation
import Testing

/// CONTRACT 4.2 against a running box: a player creates a game without a host and is its captain.
@Suite("Playing without a host, live", .serialized, .timeLimit(.minutes(5)))
struct CaptainLiveTests {
    @Test("a player creates the game and captains it; a host who joins takes the controls")
    func captain() async throws {
        let box = try BoxProcess()
        try await box.start()
        defer { box.terminate() }
        let http = HTTP(base: box.baseURL)
        let settings: [String: Any] = ["introMs": 0, "destinationsCount": 1]
        let nameless = try await http.post("/v1/sessions", ["role": "PLAYER", "settings": settings])
        #expect(nameless.status == 400 && nameless.error == "INVALID_NAME")
        let rude = try await http.post("/v1/sessions", ["role": "PLAYER", "name": "Hora", "settings": settings])
        #expect(rude.status == 400 && rude.error == "INVALID_NAME")

        let created = try await http.post("/v1/sessions", ["role": "PLAYER", "name": "Ada", "settings": settings])
        #expect(created.status == 201, "\(created.text)")
        #expect(created.json["hostAuthToken"] == nil && created.string("role") == "PLAYER")
        #expect(!created.string("tvJoinToken").isEmpty && !created.string("joinToken").isEmpty)
        #expect((created.json["settings"] as? [String: Any])?["autoAdvance"] as? Bool == true, "it plays itself")
        #expect(created.headers["set-cookie"]?.hasPrefix("tripto_device=") == true)
        let adaId = created.string("playerId")
        let ada = TestSocket(url: box.webSocketURL, token: created.string("playerAuthToken"))
        let welcome = try await ada.expect("WELCOME")
        guard case .welcome(let seated) = welcome.event else { throw HarnessError.unexpected("no welcome") }
        #expect(seated.role == .player && seated.projection.captainPlayerId == adaId && !seated.projection.hasHost)

        let sessionId = created.string("sessionId")
        let joined = try await http.post(
            "/v1/sessions/\(sessionId)/join", ["name": "Bo", "joinToken": created.string("joinToken")])
        let bo = TestSocket(url: box.webSocketURL, token: joined.string("playerAuthToken"))
        try await bo.expect("WELCOME")
        bo.send(.hostStartGame)
        try await bo.expect("ERROR") { $0.payloadObject["code"] as? String == "FORBIDDEN" }
        ada.send(.hostStartGame)
        let clue = try await ada.expectSnapshot { $0.phase == .clueLevel }
        #expect(clue.round?.destination == nil, "the captain sees no secret")
        ada.send(.hostPause)
        try await bo.expectSnapshot { $0.paused }
        ada.send(.hostNextClue)
        try await ada.expect("ERROR") { $0.payloadObject["code"] as? String == "FORBIDDEN" }
        ada.send(.hostResume)
        try await bo.expectSnapshot { !$0.paused }

        // A host joins: the controls are theirs, the captain keeps playing.
        let host = try await http.post(
            "/v1/sessions/\(sessionId)/join", ["role": "HOST", "joinToken": created.string("joinToken")])
        #expect(host.status == 201)
        let hostSocket = TestSocket(url: box.webSocketURL, token: host.string("playerAuthToken"))
        try await hostSocket.expect("WELCOME")
        try await ada.expectSnapshot { $0.hasHost }
        ada.send(.hostPause)
        try await ada.expect("ERROR") { $0.payloadObject["code"] as? String == "FORBIDDEN" }
        hostSocket.send(.hostPause)
        try await ada.expectSnapshot { $0.paused && $0.captainPlayerId == adaId }
        for socket in [ada, bo, hostSocket] { socket.close() }
    }
}
