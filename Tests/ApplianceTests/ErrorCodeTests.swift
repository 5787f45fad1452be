import Core
import Foundation
import Testing

/// Every error code of the contract, on REST and on the socket, against a running box (one for the
/// suite: each test makes its own sessions); after each socket ERROR the connection stays open and
/// the session is unchanged.
@Suite("Error codes", .serialized, .timeLimit(.minutes(5)), .sharedBox(["--max-players", "2"]))
struct ErrorCodeTests {
    let box: BoxProcess
    let http: HTTP

    init() throws {
        box = try #require(SharedBox.current)
        http = HTTP(base: box.baseURL)
    }

    @Test("REST: BAD_REQUEST for malformed, mistyped and oversize bodies, never a 500")
    func badRequests() async throws {
        for body in ["{", "[]", "\"x\"", #"{"role":5}"#, #"{"settings":{"introMs":"soon"}}"#] {
            let reply = try await http.call("POST", "/v1/sessions", raw: Data(body.utf8))
            #expect(reply.status == 400, "\(body)")
            #expect(reply.error == "BAD_REQUEST", "\(body)")
        }
        // CONTRACT 4.2: a player may create a game, with a name.
        let nameless = try await http.call("POST", "/v1/sessions", raw: Data(#"{"role":"PLAYER"}"#.utf8))
        #expect(nameless.status == 400 && nameless.error == "INVALID_NAME")
        let huge = try await http.call(
            "POST", "/v1/sessions", raw: Data(("{\"x\":\"" + String(repeating: "a", count: 17_000) + "\"}").utf8))
        #expect(huge.status == 400)
        #expect(huge.error == "BAD_REQUEST")
        let created = try await http.post("/v1/sessions")
        let join = try await http.call(
            "POST", "/v1/sessions/\(created.string("sessionId"))/join", raw: Data(#"{"name":["x"]}"#.utf8))
        #expect(join.status == 400)
        #expect(join.error == "BAD_REQUEST")
    }

    @Test("REST: INVALID_SETTINGS names the setting")
    func invalidSettings() async throws {
        let cases: [([String: Any], String)] = [
            (["destinationsCount": 0], "destinationsCount"),
            (["followupsPerDestination": 4], "followupsPerDestination"),
            (["followupSeconds": 121], "followupSeconds"), (["brakeAnswerSeconds": 4], "brakeAnswerSeconds"),
            (["introMs": 10_001], "introMs"), (["finaleMs": 20_001], "finaleMs"), (["packId": "nope"], "packId"),
            (["language": "de"], "language"), (["packId": "sv-sverige", "language": "en"], "sv-sverige"),
        ]
        for (settings, field) in cases {
            let reply = try await http.post("/v1/sessions", ["settings": settings])
            #expect(reply.status == 400, "\(settings)")
            #expect(reply.error == "INVALID_SETTINGS", "\(settings)")
            #expect(reply.string("message").contains(field), "\(reply.text)")
        }
        // The box's default pack is Swedish: in English, the first English pack by id.
        let english = try await http.post("/v1/sessions", ["settings": ["language": "en"]])
        let firstEnglish = try FileManager.default.contentsOfDirectory(atPath: box.packsDirectory).filter {
            $0.hasPrefix("en-")
        }.min()
        #expect((english.json["settings"] as? [String: Any])?["packId"] as? String == firstEnglish)
    }

    @Test("REST: join and TV errors")
    func joinErrors() async throws {
        let created = try await http.post("/v1/sessions")
        let id = created.string("sessionId")
        let code = created.string("joinCode")
        #expect(
            try await http.post("/v1/sessions/nosuchsession000/join", ["name": "A", "joinCode": code]).error
                == "SESSION_NOT_FOUND")
        let forged = try await http.post("/v1/sessions/\(id)/join", ["name": "A", "joinToken": "forged"])
        #expect(forged.status == 403)
        #expect(forged.error == "INVALID_JOIN_TOKEN")
        #expect(try await http.post("/v1/sessions/\(id)/join", ["name": "A"]).error == "INVALID_JOIN_TOKEN")
        for name in ["", "   ", String(repeating: "x", count: 21), "bad\u{7}name"] {
            let reply = try await http.post("/v1/sessions/\(id)/join", ["name": name, "joinCode": code])
            #expect(reply.status == 400)
            #expect(reply.error == "INVALID_NAME")
        }
        #expect(try await http.post("/v1/sessions/\(id)/join", ["name": "Anna", "joinCode": code]).status == 201)
        let taken = try await http.post("/v1/sessions/\(id)/join", ["name": "ANNA", "joinCode": code])
        #expect(taken.status == 409)
        #expect(taken.error == "NAME_TAKEN")
        #expect(try await http.post("/v1/sessions/\(id)/join", ["name": "Björn", "joinCode": code]).status == 201)
        let full = try await http.post("/v1/sessions/\(id)/join", ["name": "Cecilia", "joinCode": code])
        #expect(full.status == 409)
        #expect(full.error == "SESSION_FULL")
        #expect(try await http.post("/v1/sessions/\(id)/tv", ["tvJoinToken": "forged"]).error == "INVALID_JOIN_TOKEN")
        let asTv = try await http.post("/v1/sessions/\(id)/join", ["role": "TV", "joinCode": code])
        #expect(asTv.error == "BAD_REQUEST")
        // Error bodies are written like every other JSON of the box's: "/" is not escaped.
        #expect(asTv.text.contains("/v1/sessions/{id}/tv") && !asTv.text.contains("\\/"), "\(asTv.text)")
    }

    @Test("a phone that connects while the end is being saved hears SESSION_ENDED, never UNAUTHORIZED")
    func connectingAsItEnds() async throws {
        for _ in 0..<4 {
            let created = try await http.post("/v1/sessions")
            let id = created.string("sessionId")
            let token = try await http.post(
                "/v1/sessions/\(id)/join", ["name": "Anna", "joinCode": created.string("joinCode")]
            ).string("playerAuthToken")
            // Sockets opened just before, during and after the end's save.
            var sockets = (0..<4).map { _ in TestSocket(url: box.webSocketURL, token: token) }
            let deleted = try await http.call(
                "DELETE", "/v1/sessions/\(id)", headers: ["Authorization": "Bearer \(created.string("hostAuthToken"))"])
            #expect(deleted.status == 204)
            sockets += (0..<4).map { _ in TestSocket(url: box.webSocketURL, token: token) }
            for socket in sockets {
                try await socket.expect("SESSION_ENDED") { $0.payloadObject["reason"] as? String == "host_ended" }
                #expect(try await socket.closeCode() == 1000)
                #expect(!(await socket.allTexts()).contains { $0.contains("UNAUTHORIZED") })
            }
        }
    }

    @Test("REST: DELETE needs the host's token; then SESSION_ENDED")
    func delete() async throws {
        let created = try await http.post("/v1/sessions")
        let id = created.string("sessionId")
        let player = try await http.post(
            "/v1/sessions/\(id)/join", ["name": "Anna", "joinCode": created.string("joinCode")])
        #expect(try await http.call("DELETE", "/v1/sessions/\(id)").status == 401)
        let asPlayer = try await http.call(
            "DELETE", "/v1/sessions/\(id)", headers: ["Authorization": "Bearer \(player.string("playerAuthToken"))"])
        #expect(asPlayer.status == 403)
        #expect(asPlayer.error == "FORBIDDEN")
        let other = try await http.post("/v1/sessions")
        #expect(
            try await http.call(
                "DELETE", "/v1/sessions/\(id)", headers: ["Authorization": "Bearer \(other.string("hostAuthToken"))"]
            ).status == 403)
        let socket = TestSocket(url: box.webSocketURL, token: player.string("playerAuthToken"))
        try await socket.expect("WELCOME")
        let deleted = try await http.call(
            "DELETE", "/v1/sessions/\(id)", headers: ["Authorization": "Bearer \(created.string("hostAuthToken"))"])
        #expect(deleted.status == 204)
        try await socket.expect("SESSION_ENDED")
        #expect(try await socket.closeCode() == 1000)
        #expect(
            try await http.call(
                "DELETE", "/v1/sessions/\(id)", headers: ["Authorization": "Bearer \(created.string("hostAuthToken"))"]
            ).status == 410)
        #expect(try await http.get("/v1/sessions/\(id)/qr.svg").status == 410)
    }

    @Test("REST: repeated lookup misses from one address are throttled with 429 and Retry-After")
    func throttling() async throws {
        // A box of its own: the suite's box has seen the other tests' lookups.
        let box = try BoxProcess()
        try await box.start()
        defer { box.terminate() }
        let http = HTTP(base: box.baseURL)
        var statuses: [Int] = []
        for n in 0..<12 { statuses.append(try await http.get("/v1/sessions/by-code/ZZZZ\(n % 10)Z").status) }
        #expect(statuses.prefix(10).allSatisfy { $0 == 404 })
        #expect(statuses.suffix(2).allSatisfy { $0 == 429 })
        // No code at all is a malformed call, not a miss.
        #expect(try await http.get("/v1/sessions/lookup").error == "BAD_REQUEST")
        #expect(try await http.get("/v1/sessions/lookup?joinCode=").error == "BAD_REQUEST")
        let limited = try await http.get("/v1/sessions/lookup?joinCode=ABCDEF")
        #expect(limited.error == "RATE_LIMITED")
        #expect((1...60).contains(Int(limited.headers["retry-after"] ?? "") ?? 0), "\(limited.headers)")
    }

    @Test("socket: UNAUTHORIZED then close 4001, for a bad token, no token, or a late HELLO")
    func unauthorized() async throws {
        let forged = TestSocket(url: box.webSocketURL, token: "forged-token")
        try await forged.expect("ERROR") { $0.payloadObject["code"] as? String == "UNAUTHORIZED" }
        #expect(try await forged.closeCode() == 4001)
        let silent = TestSocket(url: box.webSocketURL, token: nil)
        try await silent.expect("ERROR", timeout: .seconds(20)) {
            $0.payloadObject["code"] as? String == "UNAUTHORIZED"
        }
        #expect(try await silent.closeCode() == 4001)
        let wrongFirst = TestSocket(url: box.webSocketURL, token: nil)
        wrongFirst.send(.hostNext)
        try await wrongFirst.expect("ERROR") { $0.payloadObject["code"] as? String == "UNAUTHORIZED" }
        #expect(try await wrongFirst.closeCode() == 4001)
    }

    @Test("socket: HELLO and ?token= authenticate too")
    func otherAuthentication() async throws {
        let created = try await http.post("/v1/sessions")
        let hello = TestSocket(url: box.webSocketURL, token: nil)
        hello.send(
            .hello(
                .init(role: .host, authToken: created.string("hostAuthToken"), clientVersion: "test", deviceId: "d1")))
        let welcome = try await hello.expect("WELCOME")
        #expect(welcome.payloadObject["role"] as? String == "HOST")
        let query = TestSocket(url: box.webSocketURL, token: nil, query: "?token=\(created.string("hostAuthToken"))")
        try await query.expect("WELCOME")
        hello.close()
        query.close()
    }

    @Test("socket: BAD_MESSAGE, UNKNOWN_MESSAGE, FORBIDDEN, INVALID_PHASE, RATE_LIMITED; the connection stays open")
    func socketErrors() async throws {
        let table = try await LiveTable.open(box, players: ["Anna"], tv: false)
        let anna = table.players[0].socket
        try await table.settle()
        let before = try await table.host.latestSnapshot().version
        func expectError(_ socket: TestSocket, _ code: String) async throws {
            try await socket.expect("ERROR") { $0.payloadObject["code"] as? String == code }
        }
        anna.sendRaw("this is not json")
        try await expectError(anna, "BAD_MESSAGE")
        anna.sendRaw(#"{"type":"FOLLOWUP_ANSWER_SUBMIT","payload":{"index":"one"}}"#)
        try await expectError(anna, "BAD_MESSAGE")
        anna.sendBinary([0xFF, 0x00, 0x7B])
        try await expectError(anna, "BAD_MESSAGE")
        anna.sendRaw(#"{"type":"DANCE","payload":{}}"#)
        try await expectError(anna, "UNKNOWN_MESSAGE")
        anna.send(.hostNext)
        try await expectError(anna, "FORBIDDEN")
        table.host.send(.brakePull(.init()))
        try await expectError(table.host, "FORBIDDEN")
        table.host.send(.hostNextClue)
        try await expectError(table.host, "INVALID_PHASE")
        anna.send(.brakeAnswerSubmit(.init(answerText: "x")))
        try await expectError(anna, "INVALID_PHASE")
        for _ in 0..<200 { anna.send(.ping(.init(clientTimeMs: 1))) }
        try await expectError(anna, "RATE_LIMITED")
        // Still open, and nothing changed.
        try await Task.sleep(for: .seconds(2))
        anna.send(.resumeSession)
        let snapshot = try await anna.expectSnapshot { $0.phase == .lobby }
        #expect(snapshot.version == before)
        table.closeAll()
    }

    @Test("socket: a frame over 16 KiB closes the connection with 1009")
    func oversize() async throws {
        let created = try await http.post("/v1/sessions")
        let socket = TestSocket(url: box.webSocketURL, token: created.string("hostAuthToken"))
        try await socket.expect("WELCOME")
        socket.sendRaw(#"{"type":"PING","payload":{"pad":""# + String(repeating: "x", count: 17_000) + "\"}}")
        #expect(try await socket.closeCode() == 1009)
    }

    @Test("a kicked player's token stops working")
    func kicked() async throws {
        let table = try await LiveTable.open(box, players: ["Anna"], tv: false)
        let anna = table.players[0]
        table.host.send(.hostKick(.init(playerId: anna.id)))
        try await anna.socket.expect("PLAYER_LEFT") { $0.payloadObject["reason"] as? String == "kicked" }
        // The state she leaves in comes before the close: without her, and without a `you`.
        let last = try await anna.socket.expectSnapshot { !$0.players.contains { $0.playerId == anna.id } }
        #expect(last.you == nil)
        // The contract's close for a token that is not accepted, 4001, with the reason a page tells apart.
        #expect(try await anna.socket.closeFrame()! == (4001, "REVOKED"))
        // Coming back with it, she is told the same: her seat was taken away.
        let again = TestSocket(url: box.webSocketURL, token: anna.token)
        try await again.expect("ERROR") { $0.payloadObject["code"] as? String == "UNAUTHORIZED" }
        #expect(try await again.closeFrame()! == (4001, "REVOKED"))
        table.closeAll()
    }

    @Test("healthz, packs, QR code and clips")
    func resources() async throws {
        let health = try await http.get("/healthz")
        #expect(health.status == 200)
        #expect(health.string("status") == "ok")
        #expect(health.json["sessions"] is Int)
        let packs = try await http.get("/v1/packs")
        let list = (try JSONSerialization.jsonObject(with: packs.body)) as? [[String: Any]] ?? []
        #expect(Set(list.compactMap { $0["packId"] as? String }).isSuperset(of: ["sv-sverige", "en-europe"]))
        #expect(list.allSatisfy { ($0["destinations"] as? Int ?? 0) >= 5 })
        let created = try await http.post("/v1/sessions")
        let qr = try await http.get("/v1/sessions/\(created.string("sessionId"))/qr.svg")
        #expect(qr.status == 200)
        #expect(qr.headers["content-type"] == "image/svg+xml")
        #expect(qr.text.hasPrefix("<svg"))
        #expect(
            try await http.get("/v1/sessions/\(created.string("sessionId"))/assets/no-such-clip").error
                == "ASSET_NOT_FOUND")
        #expect(try await http.get("/v1/sessions/\(created.string("sessionId"))/assets/..%2Fpack").status == 404)
        #expect(health.headers["x-content-type-options"] == "nosniff")
    }
}
