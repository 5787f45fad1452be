import Core
import NIOEmbedded
import Testing

@testable import Appliance

/// The room's smaller decisions, without a room: what a client message means to it, what a command's
/// save holds, a new seat, the sockets a seat may hold and the closes a command brings, and the
/// TRIPTO_DISABLE names.
@Suite("room decisions")
struct RoomDecisionsTests {
    private static let loop = EmbeddedEventLoop()

    private static func connection(_ id: String, _ participant: ParticipantID, _ role: Role = .player) -> Connection {
        Connection(
            id: id, participantId: participant, role: role, takesPatches: false,
            socket: .init(eventLoop: loop, write: { _, written in written.succeed() }, close: { _ in }, end: {}))
    }

    @Test(
        "a client message is refused, answered at once, a start, a pull or echo to judge, or the game command it names")
    func handling() {
        let commands: [(ClientMessage, Command)] = [
            (.hostNextClue, .nextClue), (.hostNext, .next), (.hostSkip, .next), (.hostForceReveal, .forceReveal),
            (.hostPause, .pause), (.hostResume, .resume), (.hostKick(.init(playerId: "p")), .kick(playerId: "p")),
            (.hostEndSession, .end(reason: "host_ended")), (.hostRestart, .restart),
            (.musicGainSet(.init(gainDb: -6)), .setMusicGain(gainDb: -6)),
            (.brakeAnswerSubmit(.init(answerText: "Oslo")), .brakeAnswer(answerText: "Oslo")),
            (.followupAnswerSubmit(.init(index: 1, answerText: "1901")), .followupAnswer(index: 1, answerText: "1901")),
            (.playerLeave, .leave),
        ]
        for (message, command) in commands {
            guard case .command(let made) = message.handling else {
                Issue.record("\(message) is not a command")
                continue
            }
            #expect(made == command, "\(message)")
        }
        guard case .alreadyAuthenticated = ClientMessage.hello(.init(authToken: "t")).handling,
            case .resume = ClientMessage.resumeSession.handling,
            case .ping(let ping) = ClientMessage.ping(.init(clientTimeMs: 42)).handling,
            case .startGame = ClientMessage.hostStartGame.handling,
            case .brakePull(let pull) = ClientMessage.brakePull(.init(atClientMs: 7, levelPoints: 8)).handling,
            case .clockEcho(let echo) = ClientMessage.clockEcho(.init(probeId: 3, clientTimeMs: 9)).handling
        else {
            Issue.record("the messages the room answers itself are commands")
            return
        }
        #expect(ping.clientTimeMs == 42)
        #expect(pull == .init(atClientMs: 7, levelPoints: 8))
        #expect(echo == .init(probeId: 3, clientTimeMs: 9))
    }

    @Test("a command's save holds the seats it revoked and the session's end")
    func write() {
        let command = CommandRecord(sessionId: "s", seq: 3, at: 0, actor: .box, command: .end(reason: "host_ended"))
        let write = BoxDatabase.Write(
            command: command,
            effects: [
                .revoke("p1"), .send(.sessionEnded(.init(reason: "host_ended")), to: .everyone), .revoke("p2"),
                .ended(reason: "host_ended"),
            ])
        #expect(write.revoked == ["p1", "p2"])
        #expect(write.endedReason == "host_ended")
        #expect(BoxDatabase.Write(command: command).revoked.isEmpty)
    }

    @Test("a new seat's command seats its role, and its row keeps only the token's hash")
    func newSeat() {
        for (role, name) in [(Role.player, "Ada"), (.host, nil), (.tv, nil)] {
            let new = SessionRoom.NewSeat(role, name: name, sessionId: "s1", now: 1_000)
            let id = new.seat.participantId
            switch role {
            case .player: #expect(new.command == .join(playerId: id, name: "Ada"))
            case .host: #expect(new.command == .claimHost(id))
            case .tv: #expect(new.command == .claimTv(id))
            }
            #expect(new.record.id == id && new.record.role == role && new.record.createdAt == 1_000)
            #expect(new.record.tokenHash == Secrets.hash(new.seat.token))
            #expect(new.record.tokenHash != new.seat.token)
        }
    }

    @Test("a fifth socket of a seat pushes out the oldest; a command's closes name each socket once")
    func seatsAndCloses() {
        var table = RoomConnections()
        var pushed: [String] = []
        for n in 1...6 { pushed += table.insert(Self.connection("c\(n)", "p1"), seatHoldsAtMost: 4).map(\.id) }
        #expect(pushed == ["c1", "c2"])
        #expect(table.of("p1").map(\.id) == ["c3", "c4", "c5", "c6"])
        table.insert(Self.connection("c_h", "h", .host))
        let revoked = table.closes(for: [.revoke("p1"), .revoke("p1")])
        #expect(revoked.map(\.connection.id) == ["c3", "c4", "c5", "c6"])
        #expect(revoked.allSatisfy { $0.why == .revoked })
        let ended = table.closes(for: [.revoke("p1"), .ended(reason: "expired")])
        #expect(ended.count == 5)
        #expect(ended.filter { $0.why == .sessionEnded }.map(\.connection.id) == ["c_h"])
    }

    @Test("TRIPTO_DISABLE: known names, spaces around them, and names that mean nothing")
    func disableSwitches() {
        let switches = DisableSwitches(" loop-executor, fd-table ,loop-exector,,")
        #expect(switches.off == ["loop-executor", "fd-table"])
        #expect(switches.unknown == ["loop-exector"])
        #expect(DisableSwitches(nil) == DisableSwitches(""))
    }
}
