import Core
import Foundation
import Testing

/// `tripto serve --kiosk`: a venue box that plays game after game with nobody at the controls.
@Suite("Kiosk", .serialized, .timeLimit(.minutes(5)))
struct KioskTests {
    static let fastKiosk = [
        "--kiosk", "--kiosk-lobby-seconds", "1", "--kiosk-end-seconds", "1", "--auto-pace", "0.05",
        "--kiosk-settings",
        #"{"destinationsCount":1,"followupsPerDestination":1,"followupSeconds":5,"introMs":0,"finaleMs":1000}"#,
    ]

    /// The kiosk's next session, once `GET /v1/kiosk` names one other than `first` (nil if none
    /// within `limit`).
    static func kioskSession(after first: HTTP.Reply, http: HTTP, within limit: Duration) async throws -> HTTP.Reply? {
        try await poll(for: limit, every: .milliseconds(300)) {
            let kiosk = try await http.get("/v1/kiosk")
            return kiosk.string("sessionId") != first.string("sessionId") ? kiosk : nil
        }
    }

    @Test("two full games back to back with no host, then the third lobby opens")
    func attractLoop() async throws {
        let box = try BoxProcess(arguments: Self.fastKiosk)
        try await box.start()
        defer { box.terminate() }
        let http = HTTP(base: box.baseURL)
        let kiosk = try await http.get("/v1/kiosk")
        #expect(kiosk.status == 200, "\(kiosk.text)")
        // The code on the venue's screen does not give a guest the screen, even while it is not
        // connected: the kiosk's seat keeps working.
        let takeover = try await http.post(
            "/v1/sessions/\(kiosk.string("sessionId"))/tv", ["joinCode": kiosk.string("joinCode")])
        #expect(takeover.status == 403)
        #expect(takeover.string("error") == "FORBIDDEN")
        let tv = TestSocket(url: box.webSocketURL, token: kiosk.string("tvAuthToken"))
        let welcome = try await tv.expect("WELCOME")
        guard case .welcome(let seatedAs) = welcome.event else { throw HarnessError.unexpected("no welcome") }
        #expect(seatedAs.role == .tv)
        #expect(seatedAs.projection.settings.autoAdvance)
        #expect(!seatedAs.projection.hasHost)

        let lookup = try await http.get("/v1/sessions/by-code/\(kiosk.string("joinCode"))")
        let joined = try await http.post(
            "/v1/sessions/\(lookup.string("sessionId"))/join", ["name": "Guest", "joinCode": kiosk.string("joinCode")])
        #expect(joined.status == 201)
        let player = TestSocket(url: box.webSocketURL, token: joined.string("playerAuthToken"))
        try await player.expect("WELCOME")

        for game in 1...2 {
            try await player.expectSnapshot(timeout: .seconds(15)) { $0.phase == .clueLevel }
            if game == 1 {
                // The player brakes and answers; the game goes on by itself either way. At this
                // pace the clues may be over before a loaded machine delivers the pull.
                player.send(.brakePull(.init()))
                if (try? await player.expect("BRAKE_ACCEPTED", timeout: .seconds(3))) != nil {
                    player.send(.brakeAnswerSubmit(.init(answerText: "somewhere")))
                }
            }
            try await player.expectSnapshot(timeout: .seconds(20)) { $0.phase == .followupQuestion }
            try await player.expectSnapshot(timeout: .seconds(20)) { $0.phase == .scoreboard }
            let finale = try await tv.expect("FINAL_RESULTS_PRESENT", timeout: .seconds(20))
            guard case .finalResultsPresent(let results) = finale.event else { throw HarnessError.unexpected("finale") }
            #expect(results.standingsFull.map(\.name) == ["Guest"])
            try await player.expectSnapshot(timeout: .seconds(10)) { $0.phase == .roundEnd }
            // The lobby opens again by itself, with the same player, at 0 points.
            let lobby = try await player.expectSnapshot(timeout: .seconds(10)) { $0.phase == .lobby }
            #expect(lobby.players.map(\.name) == ["Guest"] && lobby.you?.points == 0, "game \(game)")
        }
        // The same session the whole time; the box never needed a host.
        #expect(try await http.get("/v1/kiosk").string("sessionId") == kiosk.string("sessionId"))
    }

    @Test("a kiosk session that ends (here: idle) is replaced by a fresh one")
    func seatAndReplacement() async throws {
        // The fresh session idles out in its turn: 8 s leaves time to look it up before it does.
        let box = try BoxProcess(arguments: Self.fastKiosk + ["--idle-timeout", "8"])
        try await box.start()
        defer { box.terminate() }
        let http = HTTP(base: box.baseURL)
        let first = try await http.get("/v1/kiosk")
        #expect(first.status == 200)
        // Nobody connects: the session idles out and the kiosk opens a new one.
        let next = try #require(
            try await Self.kioskSession(after: first, http: http, within: .seconds(30)),
            "the kiosk kept its idle session")
        #expect(next.string("sessionId") != first.string("sessionId"))
        #expect(try await http.get("/v1/sessions/by-code/\(next.string("joinCode"))").status == 200)
    }

    @Test("guests who walked away are let go, nobody plays to an empty room, and nobody hosts")
    func awayGuestsLeave() async throws {
        let box = try BoxProcess(arguments: [
            // A lobby countdown long enough that the guest who looks in is seen to go before it ends.
            "--kiosk", "--kiosk-lobby-seconds", "6", "--kiosk-end-seconds", "1", "--kiosk-away-seconds", "10",
            "--auto-pace", "0.05", "--kiosk-settings", Self.fastKiosk.last!,
        ])
        try await box.start()
        defer { box.terminate() }
        let http = HTTP(base: box.baseURL)
        let kiosk = try await http.get("/v1/kiosk")
        let (id, code) = (kiosk.string("sessionId"), kiosk.string("joinCode"))
        let tv = TestSocket(url: box.webSocketURL, token: kiosk.string("tvAuthToken"))
        try await tv.expect("WELCOME")

        // One guest looks in and goes; another joins and never connects.
        let gone = try await http.post("/v1/sessions/\(id)/join", ["name": "Gone", "joinCode": code])
        let goneSocket = TestSocket(url: box.webSocketURL, token: gone.string("playerAuthToken"))
        try await goneSocket.expect("WELCOME")
        goneSocket.close()
        #expect(try await http.post("/v1/sessions/\(id)/join", ["name": "Never", "joinCode": code]).status == 201)
        // Ten seconds later the box has let go of both, and started no game for nobody.
        try await tv.expectSnapshot { $0.players.count == 2 }
        let empty = try await tv.expectSnapshot(timeout: .seconds(25)) { $0.players.isEmpty }
        #expect(empty.phase == .lobby)
        let old = TestSocket(url: box.webSocketURL, token: gone.string("playerAuthToken"))
        try await old.expect("ERROR") { $0.payloadObject["code"] as? String == "UNAUTHORIZED" }
        #expect(try await old.closeFrame()! == (4001, "REVOKED"))

        // The kiosk's game has no host to take; a guest who is here starts it.
        let asHost = try await http.post("/v1/sessions/\(id)/join", ["role": "HOST", "joinCode": code])
        #expect(asHost.status == 403 && asHost.error == "FORBIDDEN")
        let back = try await http.post("/v1/sessions/\(id)/join", ["name": "Gone", "joinCode": code])
        #expect(back.status == 201, "the name is free again")
        let here = TestSocket(url: box.webSocketURL, token: back.string("playerAuthToken"))
        try await here.expect("WELCOME")
        try await tv.expectSnapshot(timeout: .seconds(30)) { $0.phase != .lobby }
    }

    @Test("a game everyone walked away from is given up after three times the away time, and a fresh lobby opens")
    func abandonedGame() async throws {
        let box = try BoxProcess(arguments: [
            "--kiosk", "--kiosk-lobby-seconds", "1", "--kiosk-away-seconds", "10", "--kiosk-settings",
            #"{"destinationsCount":3,"followupsPerDestination":1,"followupSeconds":60,"introMs":10000}"#,
        ])
        try await box.start()
        defer { box.terminate() }
        let http = HTTP(base: box.baseURL)
        let first = try await http.get("/v1/kiosk")
        let guest = try await http.post(
            "/v1/sessions/\(first.string("sessionId"))/join", ["name": "Ada", "joinCode": first.string("joinCode")])
        let socket = TestSocket(url: box.webSocketURL, token: guest.string("playerAuthToken"))
        try await socket.expectSnapshot(timeout: .seconds(10)) { $0.phase != .lobby }
        socket.close()
        // Three destinations at the default pace are minutes of play; the kiosk lets go after three
        // times the away time (30 s here).
        let started = ContinuousClock.now
        let next = try #require(
            try await Self.kioskSession(after: first, http: http, within: .seconds(50)), "the kiosk played on")
        #expect(ContinuousClock.now - started >= .seconds(29))
        #expect(try await http.get("/v1/sessions/by-code/\(next.string("joinCode"))").status == 200)
        let ended = TestSocket(url: box.webSocketURL, token: guest.string("playerAuthToken"))
        let reason = try await ended.expect("SESSION_ENDED").payloadObject["reason"] as? String
        #expect(reason == "expired")
    }

    @Test("an empty lobby after a long log starts over in a fresh session")
    func renewal() async throws {
        let box = try BoxProcess(arguments: [
            "--kiosk", "--kiosk-away-seconds", "10", "--kiosk-renew-commands", "3", "--kiosk-settings",
            Self.fastKiosk.last!,
        ])
        try await box.start()
        defer { box.terminate() }
        let http = HTTP(base: box.baseURL)
        let first = try await http.get("/v1/kiosk")
        // The TV's seat and a guest who never connects; the guest's removal is the third command.
        let guest = try await http.post(
            "/v1/sessions/\(first.string("sessionId"))/join", ["name": "Ghost", "joinCode": first.string("joinCode")])
        #expect(guest.status == 201)
        let next = try #require(
            try await Self.kioskSession(after: first, http: http, within: .seconds(25)), "the kiosk kept its session")
        // Not the idle timeout (10 minutes): the box let go of the guest, and started over.
        #expect(try await http.get("/v1/sessions/by-code/\(next.string("joinCode"))").status == 200)
        #expect(try await http.get("/v1/sessions/by-code/\(first.string("joinCode"))").status == 404)
    }

    @Test("without --kiosk there is no kiosk seat")
    func noKiosk() async throws {
        let box = try BoxProcess()
        try await box.start()
        defer { box.terminate() }
        #expect(try await HTTP(base: box.baseURL).get("/v1/kiosk").status == 404)
    }
}
