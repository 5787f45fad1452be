import Core
import Foundation

/// A session on a running box with a connected host, optionally a TV, and players.
struct LiveTable {
    let box: BoxProcess
    let http: HTTP
    var sessionId = ""
    var joinCode = ""
    var joinToken = ""
    var hostToken = ""
    var tvJoinToken = ""
    var host: TestSocket!
    var tv: TestSocket?
    var tvToken = ""
    var players: [(id: String, name: String, token: String, socket: TestSocket)] = []

    init(box: BoxProcess) {
        self.box = box
        http = HTTP(base: box.baseURL)
    }

    /// Creates a session as HOST with `settings`, seats `players` and a TV, and connects them all.
    static func open(
        _ box: BoxProcess, settings: [String: Any] = [:], players names: [String] = ["Anna", "Björn", "Cecilia"],
        tv: Bool = true
    )
        async throws -> LiveTable
    {
        var table = LiveTable(box: box)
        let created = try await table.http.post("/v1/sessions", ["role": "HOST", "settings": settings])
        guard created.status == 201 else { throw HarnessError.unexpected("create: \(created.status) \(created.text)") }
        table.sessionId = created.string("sessionId")
        table.joinCode = created.string("joinCode")
        table.joinToken = created.string("joinToken")
        table.hostToken = created.string("hostAuthToken")
        table.tvJoinToken = created.string("tvJoinToken")
        table.host = TestSocket(url: box.webSocketURL, token: table.hostToken)
        try await table.host.expect("WELCOME")
        if tv {
            let joined = try await table.http.post(
                "/v1/sessions/\(table.sessionId)/tv", ["tvJoinToken": table.tvJoinToken])
            guard joined.status == 201 else { throw HarnessError.unexpected("tv: \(joined.text)") }
            table.tvToken = joined.string("tvAuthToken")
            table.tv = TestSocket(url: box.webSocketURL, token: table.tvToken)
            try await table.tv!.expect("WELCOME")
        }
        for name in names { try await table.addPlayer(name) }
        return table
    }

    mutating func addPlayer(_ name: String) async throws {
        let joined = try await http.post("/v1/sessions/\(sessionId)/join", ["name": name, "joinToken": joinToken])
        guard joined.status == 201 else { throw HarnessError.unexpected("join: \(joined.text)") }
        let socket = TestSocket(url: box.webSocketURL, token: joined.string("playerAuthToken"))
        try await socket.expect("WELCOME")
        players.append((joined.string("playerId"), name, joined.string("playerAuthToken"), socket))
    }

    var everyone: [TestSocket] { [host] + (tv.map { [$0] } ?? []) + players.map(\.socket) }

    /// Waits until every connection has a snapshot in `phase` (and, if given, at `levelPoints`).
    func allSee(_ phase: Phase, level: Int? = nil, timeout: Duration = .seconds(10)) async throws {
        for socket in everyone {
            try await socket.expectSnapshot(timeout: timeout) {
                $0.phase == phase && (level == nil || $0.clue?.levelPoints == level)
            }
        }
    }

    /// The destination of the current round, from the host's pro view.
    func destinationName() async throws -> String {
        guard let name = try await host.latestSnapshot().round?.destination?.name else {
            throw HarnessError.unexpected("the host's view has no destination")
        }
        return name
    }

    /// Player `index` pulls the brake and, once the host has seen it accepted, locks `answer`.
    func brakeAndAnswer(_ index: Int, _ answer: String) async throws {
        players[index].socket.send(.brakePull(.init()))
        try await host.expect("BRAKE_ACCEPTED") {
            $0.payloadObject["brakeOwnerPlayerId"] as? String == players[index].id
        }
        players[index].socket.send(.brakeAnswerSubmit(.init(answerText: answer)))
    }

    /// Presence updates and snapshots go out at the room's next free moment: lets them land, so a
    /// snapshot read next is the newest.
    func settle() async throws { try await Task.sleep(for: .milliseconds(200)) }

    func closeAll() { for socket in everyone { socket.close() } }

    /// The same participants, connected again (with their old tokens) to a restarted box.
    func reconnected(to box: BoxProcess) -> LiveTable {
        var table = LiveTable(box: box)
        table.sessionId = sessionId
        table.joinCode = joinCode
        table.joinToken = joinToken
        table.hostToken = hostToken
        table.tvToken = tvToken
        table.host = TestSocket(url: box.webSocketURL, token: hostToken)
        table.tv = tv == nil ? nil : TestSocket(url: box.webSocketURL, token: tvToken)
        table.players = players.map { ($0.id, $0.name, $0.token, TestSocket(url: box.webSocketURL, token: $0.token)) }
        return table
    }
}

extension ServerMessage {
    var payloadObject: [String: Any] {
        let data = try! JSONEncoder().encode(self)
        return ((try? JSONSerialization.jsonObject(with: data)) as? [String: Any])?["payload"] as? [String: Any] ?? [:]
    }
}
