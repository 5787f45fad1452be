import Core
import Foundation
import GRDB
import Testing

/// The plug pulled again and again: scripted games are played on two boxes in lockstep, one of
/// which is SIGKILLed right after a command at many random moments. After every restart the
/// clients come back with their old tokens, and the killed box must be exactly where the reference
/// box was before that command, or exactly where it is after it: nothing a client saw is lost,
/// nothing is half done. `make soak` runs the long version (TRIPTO_CRASH_KILLS).
@Suite("Crash campaign", .serialized, .timeLimit(.minutes(30)))
struct CrashCampaignTests {
    static var killPoints: Int { Int(ProcessInfo.processInfo.environment["TRIPTO_CRASH_KILLS"] ?? "") ?? 32 }
    static var seed: UInt64 { UInt64(ProcessInfo.processInfo.environment["TRIPTO_CRASH_SEED"] ?? "") ?? 2026 }

    /// One step of the script: who sends what.
    enum Action: CustomStringConvertible {
        case host(ClientMessage)
        case player(Int, ClientMessage)

        var description: String {
            switch self {
            case .host(let message): "host \(message.type)"
            case .player(let index, let message): "player \(index) \(message.type)"
            }
        }
    }

    /// The next step for a game in `view`, drawn from `random`. The pack has one destination
    /// (Gothenburg), so both boxes play the same game.
    static func nextAction(_ view: Projection, players: Int, random: inout SplitMix64) -> Action {
        let names = view.players.map(\.playerId)
        switch view.phase {
        case .lobby:
            return .host(.hostStartGame)
        case .clueLevel:
            let locked = Set(view.lockedAnswers.map(\.playerId))
            let free = (0..<players).filter { !locked.contains(names[$0]) }
            if let pick = free.randomElement(using: &random), random.next() % 3 != 0 {
                return .player(pick, .brakePull(.init()))
            }
            return .host(.hostNextClue)
        case .pausedForBrake:
            let owner = names.firstIndex(of: view.brake?.brakeOwnerPlayerId ?? "") ?? 0
            return .player(
                owner, .brakeAnswerSubmit(.init(answerText: random.next() % 2 == 0 ? "Gothenburg" : "Malmö")))
        case .followupQuestion where view.followup?.isOpen == true:
            let answered = Set((view.followup?.answers ?? []).map(\.playerId))
            let free = (0..<players).filter { !answered.contains(names[$0]) }
            if let pick = free.randomElement(using: &random), random.next() % 4 != 0 {
                let text =
                    random.next() % 2 == 0 ? ["Liseberg", "Gustav II Adolf"][view.followup!.index - 1] : "Tivoli"
                return .player(pick, .followupAnswerSubmit(.init(index: view.followup!.index, answerText: text)))
            }
            return .host(.hostNext)
        case .finalResults, .roundEnd:
            return .host(.hostRestart)
        default:
            return .host(.hostNext)
        }
    }

    static func send(_ action: Action, on table: LiveTable) {
        switch action {
        case .host(let message): table.host.send(message)
        case .player(let index, let message): table.players[index].socket.send(message)
        }
    }

    /// The host's view once it differs from `before`.
    static func settled(_ table: LiveTable, after before: Checkpoint) async throws -> Projection {
        try await table.host.expectSnapshot(timeout: .seconds(15)) { Checkpoint($0) != before }
    }

    /// The host's view right after (re)connecting: its WELCOME. The TV and every player must be
    /// welcomed back too, in the same phase.
    static func welcome(_ table: LiveTable) async throws -> Projection {
        func projection(_ socket: TestSocket) async throws -> Projection {
            let welcome = try await socket.expect("WELCOME", timeout: .seconds(15))
            guard case .welcome(let payload) = welcome.event else { throw HarnessError.unexpected("not a WELCOME") }
            return payload.projection
        }
        let host = try await projection(table.host)
        for socket in table.everyone.dropFirst() {
            let view = try await projection(socket)
            #expect(view.phase == host.phase && view.clue?.levelPoints == host.clue?.levelPoints)
        }
        return host
    }

    /// Whether the host had been told of `state` (a snapshot of it arrived after its first `mark`
    /// messages) before the plug was pulled.
    static func told(_ table: LiveTable, _ state: Checkpoint, since mark: Int) async -> Bool {
        await table.host.allTexts().dropFirst(mark).contains { text in
            guard let message = try? JSONDecoder().decode(ServerMessage.self, from: Data(text.utf8)),
                case .stateSnapshot(let view) = message.event
            else { return false }
            return Checkpoint(view) == state
        }
    }

    @Test("SIGKILL at random moments of scripted games: every game goes on exactly where the reference is")
    func campaign() async throws {
        let packs = FileManager.default.temporaryDirectory.appendingPathComponent("tripto-crash-\(UUID().uuidString)")
        let pack = packs.appendingPathComponent("test-mini")
        try FileManager.default.createDirectory(at: pack, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: packs) }
        try FileManager.default.copyItem(
            at: PackCommandTests.root.appendingPathComponent("Tests/CoreTests/Fixtures/mini.json"),
            to: pack.appendingPathComponent("pack.json"))
        // Long timers: in lockstep, only the script moves the games on.
        let settings: [String: Any] = [
            "introMs": 0, "destinationsCount": 1, "followupsPerDestination": 2, "followupSeconds": 120,
            "brakeAnswerSeconds": 60, "finaleMs": 20_000,
        ]
        let names = ["Anna", "Björn", "Cecilia"]
        let reference = try BoxProcess(packs: packs.path)
        let crashing = try BoxProcess(packs: packs.path)
        try await reference.start()
        try await crashing.start()
        let model = try await LiveTable.open(reference, settings: settings, players: names, tv: true)
        var table = try await LiveTable.open(crashing, settings: settings, players: names, tv: true)
        var random = SplitMix64(seed: Self.seed)
        for host in [model.host!, table.host!] {
            try await host.expectSnapshot { $0.players.count == names.count && $0.players.allSatisfy(\.isConnected) }
        }
        var expected = Checkpoint(try await model.host.latestSnapshot())
        var kills = 0
        var lostInFlight = 0
        var savedInFlight = 0
        var toldBeforeKill = 0
        var steps = 0
        var games = Set<Int>()

        while kills < Self.killPoints {
            let view = try await model.host.latestSnapshot()
            let action = Self.nextAction(view, players: names.count, random: &random)
            if case .host(.hostRestart) = action { games.insert(steps) }
            Self.send(action, on: model)
            let after = Checkpoint(try await Self.settled(model, after: expected))
            steps += 1
            let mark = await table.host.allTexts().count
            Self.send(action, on: table)
            // About every other step, the plug is pulled 0–12 ms after the command went out; half of
            // those kills come within its first millisecond, while it is most often still on its way
            // to the disk (a save takes well under a millisecond, so kills spread evenly over 12 ms
            // would seldom find one unsaved).
            guard random.next() % 2 == 0 else {
                let seen = Checkpoint(try await Self.settled(table, after: expected))
                #expect(seen == after, "step \(steps) \(action): \(seen) ≠ reference \(after)")
                expected = after
                continue
            }
            let window: UInt64 = random.next() % 2 == 0 ? 1_000 : 12_000
            try await Task.sleep(for: .microseconds(Int(random.next() % window)))
            await crashing.kill()
            kills += 1
            let wasTold = await Self.told(table, after, since: mark)
            table.closeAll()
            try await crashing.start()
            table = table.reconnected(to: crashing)
            let recovered = Checkpoint(try await Self.welcome(table))
            if wasTold {
                toldBeforeKill += 1
                #expect(recovered == after, "kill \(kills) after \(action): the host was told, yet \(recovered)")
            }
            if recovered == expected {
                // The command was not saved: nobody heard of it either. It is simply sent again.
                lostInFlight += 1
                Self.send(action, on: table)
                let seen = Checkpoint(try await Self.settled(table, after: expected))
                #expect(seen == after, "kill \(kills) (\(action), resent): \(seen) ≠ reference \(after)")
            } else {
                savedInFlight += 1
                #expect(recovered == after, "kill \(kills) after \(action): recovered \(recovered), reference \(after)")
            }
            expected = after
        }
        try await Task.sleep(for: .milliseconds(500))
        let finalView = Checkpoint(try await table.host.latestSnapshot())
        let referenceView = Checkpoint(try await model.host.latestSnapshot())
        #expect(finalView == referenceView)
        print(
            "crash campaign: \(kills) kill points survived over \(steps) steps (\(games.count + 1) games); "
                + "in-flight command saved \(savedInFlight)× (the host already told \(toldBeforeKill)×), "
                + "not yet saved \(lostInFlight)×")
        // Both sides of the race were hit: kills before the command was saved and after.
        #expect(savedInFlight > 0 && lostInFlight > 0)
        table.closeAll()
        model.closeAll()
        await crashing.stop()
        await reference.stop()
        let database = try DatabaseQueue(path: crashing.databasePath)
        let integrity = try await database.read { try String.fetchOne($0, sql: "PRAGMA integrity_check") }
        #expect(integrity == "ok")
    }
}
