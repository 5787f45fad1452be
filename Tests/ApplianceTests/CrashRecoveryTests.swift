import Core
import Foundation
import GRDB
import Testing

/// The plug is pulled (SIGKILL) in the middle of a game; the box restarts on the same data and every
/// client carries on with its old token.
@Suite("Crash recovery", .serialized, .timeLimit(.minutes(5)))
struct CrashRecoveryTests {
    @Test("SIGKILL mid-game: same phase, level, locked answers and scores after a restart")
    func killMidClue() async throws {
        let box = try BoxProcess()
        try await box.start()
        var table = try await LiveTable.open(
            box, settings: ["introMs": 0, "destinationsCount": 2, "followupsPerDestination": 1, "followupSeconds": 20],
            players: ["Anna", "Björn", "Cecilia"], tv: true)
        table.host.send(.hostStartGame)
        try await table.allSee(.clueLevel, level: 10)
        let name = try await table.destinationName()
        try await table.brakeAndAnswer(0, name)
        try await table.allSee(.clueLevel, level: 8)
        try await table.brakeAndAnswer(1, "Atlantis")
        let before = try await table.host.expectSnapshot { $0.clue?.levelPoints == 6 }

        await box.kill()
        #expect(box.exitStatus == 9)
        try await box.start()  // same data directory, new port
        table = table.reconnected(to: box)
        let after = try await table.host.expectSnapshot { $0.phase == .clueLevel }
        #expect(after.phase == before.phase)
        #expect(after.clue == before.clue)
        #expect(after.round == before.round)
        #expect(after.lockedAnswers == before.lockedAnswers)
        #expect(after.lockedAnswers.map(\.answerText) == [name, "Atlantis"])
        #expect(after.scoreboard == before.scoreboard)
        #expect(after.players.map(\.playerId) == before.players.map(\.playerId))
        #expect(after.version > before.version, "versions keep growing across a restart")
        let anna = try await table.players[0].socket.expectSnapshot { $0.phase == .clueLevel }
        #expect(anna.you?.hasLockedAnswer == true)

        // The game goes on: the reveal scores the answers locked before the crash.
        // The TV is back too before the reveal, or it would only see the revealed state.
        try await table.tv!.expectSnapshot(timeout: .seconds(30)) { $0.phase == .clueLevel }
        table.host.send(.hostForceReveal)
        let results = try await table.tv!.expect("DESTINATION_RESULTS", timeout: .seconds(30))
        let rows = results.payloadObject["results"] as? [[String: Any]] ?? []
        #expect(rows.map { $0["pointsAwarded"] as? Int } == [10, 0])

        // A followup's deadline set before the crash still fires after it (20 s: after the TV is
        // back, however slowly the box restarts, so that the TV hears it).
        table.host.send(.hostNext)
        try await table.tv!.expect("FOLLOWUP_PRESENT")
        await box.kill()
        try await Task.sleep(for: .milliseconds(500))
        try await box.start()
        table = table.reconnected(to: box)
        try await table.tv!.expect("FOLLOWUP_RESULTS", timeout: .seconds(30))
        table.closeAll()

        await box.stop()
        let database = try DatabaseQueue(path: box.databasePath)
        let integrity = try await database.read { try String.fetchOne($0, sql: "PRAGMA integrity_check") }
        #expect(integrity == "ok")
        let hashes = try await database.read { try String.fetchAll($0, sql: "SELECT tokenHash FROM participant") }
        #expect(!hashes.contains(table.hostToken), "tokens are stored only as hashes")
        #expect(hashes.allSatisfy { $0.count == 64 })
    }

    @Test("a phone that connects while an end is being saved, and the save fails, is let in")
    func endNotSaved() async throws {
        let box = try BoxProcess()
        try await box.start()
        let http = HTTP(base: box.baseURL)
        let created = try await http.post("/v1/sessions")
        let sessionId = created.string("sessionId")
        let token = try await http.post(
            "/v1/sessions/\(sessionId)/join", ["name": "Anna", "joinCode": created.string("joinCode")]
        ).string("playerAuthToken")
        var configuration = Configuration()
        configuration.busyMode = .timeout(5)
        let database = try DatabaseQueue(path: box.databasePath, configuration: configuration)
        // The end's save takes about a second (counting to ten million), then the disk refuses it.
        try await database.write {
            try $0.execute(
                sql: """
                    CREATE TRIGGER refuse_slowly BEFORE INSERT ON command WHEN NEW.sessionId = '\(sessionId)'
                    BEGIN SELECT RAISE(ABORT, 'disk full (test)') WHERE (WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL
                    SELECT x + 1 FROM n WHERE x < 10000000) SELECT count(*) FROM n) > 0; END
                    """)
        }
        let ending = Task {
            try await http.call(
                "DELETE", "/v1/sessions/\(sessionId)",
                headers: ["Authorization": "Bearer \(created.string("hostAuthToken"))"])
        }
        try await Task.sleep(for: .milliseconds(200))
        // The room has ended the game; its end is still on its way to the disk.
        let phone = TestSocket(url: box.webSocketURL, token: token)
        let refused = try await ending.value
        #expect(refused.status == 503)
        #expect(refused.error == "STORAGE_UNAVAILABLE")
        try await phone.expect("WELCOME")
        try await database.write { try $0.execute(sql: "DROP TRIGGER refuse_slowly") }
        try await phone.expectSnapshot { $0.phase == .lobby }
        #expect(!(await phone.allTexts()).contains { $0.contains("SESSION_ENDED") || $0.contains("UNAUTHORIZED") })
        phone.close()
    }

    @Test("A command that cannot be saved is refused, nobody hears of it, and the log keeps no gap")
    func saveFails() async throws {
        let box = try BoxProcess()
        try await box.start()
        var table = try await LiveTable.open(
            box, settings: ["introMs": 0, "destinationsCount": 1, "followupsPerDestination": 1],
            players: ["Anna", "Björn"], tv: true)
        let lobby = try await table.host.expectSnapshot { $0.players.filter(\.isConnected).count == 2 }
        // Anna connected a second time, taking STATE_PATCH: some of what she was sent is dropped
        // with the lost command, so the box sends her the saved state whole.
        let twin = TestSocket(url: box.webSocketURL, token: table.players[0].token, query: "?patches=1")
        try await twin.expect("WELCOME")
        var configuration = Configuration()
        configuration.busyMode = .timeout(5)
        let database = try DatabaseQueue(path: box.databasePath, configuration: configuration)
        let sessionId = table.sessionId
        let next = try await database.read {
            try Int.fetchOne($0, sql: "SELECT MAX(seq) FROM command WHERE sessionId = ?", arguments: [sessionId])
        }.map { $0 + 1 }
        // The disk refuses exactly the next command of this session (as a full disk would).
        try await database.write {
            try $0.execute(
                sql: """
                    CREATE TRIGGER refuse_one BEFORE INSERT ON command WHEN NEW.seq = \(next ?? 1)
                    BEGIN SELECT RAISE(ABORT, 'disk full (test)'); END
                    """)
        }
        // The next clue comes right behind the start: it is applied before the start is saved, and
        // then cannot be saved either (it would leave a gap in the log), or it finds the lobby.
        table.host.send(.hostStartGame)
        table.host.send(.hostNextClue)
        let refused = try await table.host.expect("ERROR")
        #expect(refused.payloadObject["code"] as? String == "STORAGE_UNAVAILABLE")
        for socket in table.everyone + [twin] {
            let back = try await socket.expectSnapshot { $0.version > lobby.version }
            #expect(back.phase == .lobby)
            #expect(back.players.map(\.name) == ["Anna", "Björn"])
        }
        // A player who joins meanwhile is refused too, and is not seated.
        let joined = try await table.http.post(
            "/v1/sessions/\(sessionId)/join", ["name": "Cecilia", "joinToken": table.joinToken])
        #expect(joined.status == 503)
        #expect(joined.error == "STORAGE_UNAVAILABLE")

        try await database.write { try $0.execute(sql: "DROP TRIGGER refuse_one") }
        table.host.send(.hostStartGame)
        try await table.allSee(.clueLevel, level: 10)
        try await twin.expect("STATE_PATCH") { message in
            guard case .statePatch(let patch) = message.event else { return false }
            return patch.ops.contains { $0.path == "/phase" && $0.value == .string("CLUE_LEVEL") }
        }
        try await table.settle()
        let patched = try await twin.patchedStates()
        // On connecting, and after each of the two failed saves (the start, Cecilia's join); the
        // start's own change, the first after connecting, was dropped with it.
        #expect(patched.whole == 3)
        #expect(!patched.patched.isEmpty)
        let annasLast = try #require(
            await table.players[0].socket.allTexts().last { $0.contains(#""type":"STATE_SNAPSHOT""#) })
        let lastMatches = try patched.last == JSONValue(json: annasLast)["payload"]
        #expect(lastMatches, "Anna's patched state is not her last snapshot")
        // Nothing of the lost start went out: before the real one, every snapshot showed the lobby.
        for socket in table.everyone {
            var phases: [Phase] = []
            for text in await socket.allTexts() {
                guard let message = try? JSONDecoder().decode(ServerMessage.self, from: Data(text.utf8)) else {
                    continue
                }
                if case .stateSnapshot(let projection) = message.event { phases.append(projection.phase) }
            }
            let firstStarted = phases.firstIndex { $0 != .lobby } ?? phases.endIndex
            #expect(phases[firstStarted...].allSatisfy { $0 != .lobby }, "no lobby after a start: \(phases)")
            #expect(phases.filter { $0 != .lobby }.count >= 1)
        }
        // The log has no gap, and a restart replays it to the same game.
        let seqs = try await database.read {
            try Int.fetchAll(
                $0, sql: "SELECT seq FROM command WHERE sessionId = ? ORDER BY seq", arguments: [sessionId])
        }
        #expect(seqs == Array(1...seqs.count))
        let before = try await table.host.latestSnapshot()
        await box.kill()
        try await box.start()
        table = table.reconnected(to: box)
        let after = try await table.host.expectSnapshot { $0.phase == .clueLevel }
        #expect(after.clue == before.clue)
        #expect(after.players.map(\.name) == ["Anna", "Björn"])
        table.closeAll()
        await box.stop()
    }

    @Test("SIGTERM closes every socket with 1001; the session resumes after a restart")
    func gracefulShutdown() async throws {
        let box = try BoxProcess()
        try await box.start()
        var table = try await LiveTable.open(box, players: ["Anna"], tv: true)
        await box.stop()
        #expect(box.exitStatus == 0)
        for socket in table.everyone {
            #expect(try await socket.closeCode() == 1001)
        }
        try await box.start()
        table = table.reconnected(to: box)
        let snapshot = try await table.players[0].socket.expectSnapshot { $0.phase == .lobby }
        #expect(snapshot.players.map(\.name) == ["Anna"])
        #expect(snapshot.hasHost)
        table.closeAll()
    }

    /// A box whose autoAdvance clues stay 1 s, and a game of one player on it, once it shows
    /// `level` points.
    private func autoAdvanceGame(at level: Int) async throws -> (BoxProcess, LiveTable) {
        let box = try BoxProcess(arguments: ["--auto-pace", "0.05"])
        try await box.start()
        let table = try await LiveTable.open(
            box, settings: ["autoAdvance": true, "introMs": 0], players: ["Anna"], tv: false)
        table.host.send(.hostStartGame)
        try await table.players[0].socket.expectSnapshot(timeout: .seconds(10)) { $0.clue?.levelPoints == level }
        return (box, table)
    }

    @Test("an autoAdvance game keeps its own pace across a restart with another --auto-pace")
    func paceKept() async throws {
        let (box, playing) = try await autoAdvanceGame(at: 6)
        await box.stop()
        // Its timers' firings are in the log: a replay at another pace would find them not yet due.
        box.extraArguments = ["--auto-pace", "1"]
        try await box.start()
        let table = playing.reconnected(to: box)
        let snapshot = try await table.players[0].socket.expectSnapshot { _ in true }
        #expect(snapshot.phase != .lobby && (snapshot.phase != .clueLevel || (snapshot.clue?.levelPoints ?? 10) <= 6))
        #expect(!box.log.contains("replay stopped"), "\(box.log)")
        table.closeAll()
    }

    @Test("a box restarted with its clock behind the log goes on in the log's time, not an hour later")
    func clockBehindAtRestart() async throws {
        let (box, playing) = try await autoAdvanceGame(at: 8)
        await box.stop()
        // As if the box now started an hour behind the clock it played by (a board without a
        // real-time clock, after a power cut): the log's times are an hour ahead of it.
        let database = try DatabaseQueue(path: box.databasePath)
        try await database.write { db in try db.execute(sql: "UPDATE command SET at = at + 3600000") }
        try database.close()
        try await box.start()
        let table = playing.reconnected(to: box)
        // The clue timers run on: a second each, not an hour.
        try await table.players[0].socket.expectSnapshot(timeout: .seconds(15)) {
            $0.phase != .clueLevel || ($0.clue?.levelPoints ?? 10) <= 4
        }
        table.closeAll()
    }
}
