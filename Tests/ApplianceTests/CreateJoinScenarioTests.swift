import Core
import Foundation
import Testing

/// The seven create/join scenarios of the unified launch flow (seeds/000, TASK-UX-04), against a running box.
@Suite("Create and join (TASK-UX-04)", .serialized, .timeLimit(.minutes(5)))
struct CreateJoinScenarioTests {
    let box: BoxProcess
    let http: HTTP

    init() async throws {
        box = try BoxProcess()
        try await box.start()
        http = HTTP(base: box.baseURL)
    }

    @Test("1. a TV creates, an iOS host joins by code: host and TV")
    func tvCreatesHostJoins() async throws {
        let created = try await http.post("/v1/sessions", ["role": "TV"])
        #expect(created.status == 201)
        #expect(created.string("role") == "TV")
        #expect(!created.string("tvAuthToken").isEmpty)
        #expect(created.json["hostAuthToken"] == nil)
        let tv = TestSocket(url: box.webSocketURL, token: created.string("tvAuthToken"))
        try await tv.expect("WELCOME")
        let code = created.string("joinCode")
        let lookup = try await http.get("/v1/sessions/by-code/\(code.lowercased())")
        #expect(lookup.status == 200)
        #expect(lookup.json["hasHost"] as? Bool == false)
        #expect(lookup.json["hasTv"] as? Bool == true)
        // Spaces and dashes in a typed code are ignored, in the path as in the query.
        let spaced = "\(code.prefix(3))%20\(code.dropFirst(3).lowercased())"
        #expect(try await http.get("/v1/sessions/by-code/\(spaced)").string("sessionId") == lookup.string("sessionId"))
        #expect(try await http.get("/v1/sessions/lookup?joinCode=\(spaced)").status == 200)
        let joined = try await http.post(
            "/v1/sessions/\(lookup.string("sessionId"))/join", ["role": "HOST", "joinCode": code])
        #expect(joined.status == 201)
        #expect(joined.string("role") == "HOST")
        let host = TestSocket(url: box.webSocketURL, token: joined.string("playerAuthToken"))
        let welcome = try await host.expect("WELCOME")
        #expect(welcome.payloadObject["role"] as? String == "HOST")
        #expect(try await http.get("/v1/sessions/lookup?joinCode=\(code)").json["hasHost"] as? Bool == true)
        host.close()
        tv.close()
    }

    @Test("2. an iOS host creates, a TV joins with the tvJoinToken")
    func hostCreatesTvJoins() async throws {
        let created = try await http.post("/v1/sessions")
        #expect(created.status == 201)
        #expect(created.string("role") == "HOST")
        let tv = try await http.post(
            "/v1/sessions/\(created.string("sessionId"))/tv", ["tvJoinToken": created.string("tvJoinToken")])
        #expect(tv.status == 201)
        #expect(!tv.string("tvAuthToken").isEmpty)
        #expect(tv.string("wsUrl").hasSuffix("/ws"))
    }

    @Test("3. a second iOS host is refused: HOST_ROLE_TAKEN")
    func secondHost() async throws {
        let created = try await http.post("/v1/sessions")
        let again = try await http.post(
            "/v1/sessions/\(created.string("sessionId"))/join",
            ["role": "HOST", "joinCode": created.string("joinCode")])
        #expect(again.status == 409)
        #expect(again.error == "HOST_ROLE_TAKEN")
        #expect(again.string("message") == "This session already has a host")
    }

    @Test("4. a second TV is refused while the first is connected, replaces it when not")
    func secondTv() async throws {
        let created = try await http.post("/v1/sessions", ["role": "TV"])
        let id = created.string("sessionId")
        let first = TestSocket(url: box.webSocketURL, token: created.string("tvAuthToken"))
        try await first.expect("WELCOME")
        let refused = try await http.post("/v1/sessions/\(id)/tv", ["joinCode": created.string("joinCode")])
        #expect(refused.status == 409)
        #expect(refused.error == "TV_ROLE_TAKEN")
        #expect(refused.string("message") == "TV already connected to this session")
        first.close()
        _ = try await first.closeCode()
        var replaced: HTTP.Reply?
        for _ in 0..<50 {
            replaced = try await http.post("/v1/sessions/\(id)/tv", ["joinCode": created.string("joinCode")])
            if replaced?.status == 201 { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(replaced?.status == 201)
        // The old TV token no longer works: it was replaced.
        let old = TestSocket(url: box.webSocketURL, token: created.string("tvAuthToken"))
        try await old.expect("ERROR") { $0.payloadObject["code"] as? String == "UNAUTHORIZED" }
        #expect(try await old.closeFrame()! == (4001, "REVOKED"))
    }

    @Test("5. the web joins as Host where an iOS host exists: HOST_ROLE_TAKEN")
    func webHostRefused() async throws {
        let created = try await http.post("/v1/sessions")
        let lookup = try await http.get("/v1/sessions/by-code/\(created.string("joinCode"))")
        #expect(lookup.json["hasHost"] as? Bool == true)
        let refused = try await http.post(
            "/v1/sessions/\(created.string("sessionId"))/join",
            ["role": "HOST", "name": "Web", "joinToken": created.string("joinToken")])
        #expect(refused.status == 409)
        #expect(refused.error == "HOST_ROLE_TAKEN")
    }

    @Test("6. a TV creates, the web joins as Player")
    func webPlayer() async throws {
        let created = try await http.post("/v1/sessions", ["role": "TV"])
        let joined = try await http.post(
            "/v1/sessions/\(created.string("sessionId"))/join",
            ["name": "Dora", "joinCode": created.string("joinCode")])
        #expect(joined.status == 201)
        #expect(joined.string("role") == "PLAYER")
        let player = TestSocket(url: box.webSocketURL, token: joined.string("playerAuthToken"))
        let snapshot = try await player.expectSnapshot { $0.phase == .lobby }
        #expect(snapshot.you?.name == "Dora")
        #expect(snapshot.players.map(\.name) == ["Dora"])
        player.close()
    }

    @Test("7. resetting from the lobby ends the session for everyone; a new one can be made")
    func reset() async throws {
        var table = try await LiveTable.open(box, players: ["Eva"], tv: true)
        let old = table.joinCode
        table.host.send(.hostEndSession)
        for socket in table.everyone {
            try await socket.expect("SESSION_ENDED") { $0.payloadObject["reason"] as? String == "host_ended" }
            #expect(try await socket.closeCode() == 1000)
        }
        #expect(try await http.get("/v1/sessions/by-code/\(old)").status == 404)
        let join = try await http.post("/v1/sessions/\(table.sessionId)/join", ["name": "Late", "joinCode": old])
        #expect(join.status == 410)
        #expect(join.error == "SESSION_ENDED")
        // An old token reconnecting learns the session ended.
        let again = TestSocket(url: box.webSocketURL, token: table.players[0].token)
        try await again.expect("SESSION_ENDED")
        table = try await LiveTable.open(box, players: [], tv: false)
        #expect(table.joinCode != old)
        table.closeAll()
    }
}
