import Foundation
import Testing

@testable import Core

@Suite("Wire format")
struct WireTests {
    private func json(_ value: some Encodable) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: JSONEncoder().encode(value)) as! [String: Any]
    }

    @Test("server messages: { type, sessionId, serverTimeMs, payload }")
    func envelope() throws {
        let message = ServerMessage(
            sessionId: "abc", serverTimeMs: 42, event: .brakeRejected(BrakeRejected(reason: .rateLimited)))
        let object = try json(message)
        #expect(Set(object.keys) == ["type", "sessionId", "serverTimeMs", "payload"])
        #expect(object["type"] as? String == "BRAKE_REJECTED")
        #expect((object["payload"] as? [String: Any])?["reason"] as? String == "rate_limited")
        let decoded = try JSONDecoder().decode(ServerMessage.self, from: JSONEncoder().encode(message))
        #expect(decoded == message)
    }

    @Test("a snapshot writes absent parts as null, with the contract's keys")
    func snapshotShape() throws {
        let table = try Table()
        let projection = table.game.projection(for: .player, participant: "p1", now: table.now)
        let object = try json(projection)
        for key in ["round", "clue", "brake", "followup", "finalResults", "captainPlayerId"] {
            #expect(object[key] is NSNull, "\(key) is null in the lobby")
        }
        // The contract's keys, CONTRACT 4.2's captain, and the box's journey and sound (docs/protocol.md).
        let expected: Set<String> = [
            "version", "phase", "paused", "joinCode", "joinUrl", "settings", "hasHost", "hasTv", "players", "round",
            "clue", "brake", "lockedAnswers", "followup", "scoreboard", "timers", "finalResults", "you",
            "captainPlayerId", "journey", "sound",
        ]
        #expect(Set(object.keys) == expected)
        let you = try #require(object["you"] as? [String: Any])
        #expect(you["playerId"] as? String == "p1")
        #expect(you["hasLockedAnswer"] as? Bool == false)
        #expect(try json(table.game.projection(for: .tv, participant: "tv-1", now: table.now))["you"] is NSNull)
        let settings = try #require(object["settings"] as? [String: Any])
        #expect(settings["destinationsCount"] as? Int == 3)
        #expect(settings["followupsPerDestination"] as? Int == 2)
        #expect(settings["finaleMs"] as? Int == 11_000)
        let decoded = try JSONDecoder().decode(Projection.self, from: JSONEncoder().encode(projection))
        #expect(decoded == projection)
    }

    @Test("a patch operation keeps a null value, and a remove has none")
    func patchOperations() throws {
        let patch = StatePatch(
            version: 8, baseVersion: 7,
            ops: [
                PatchOperation(op: "replace", path: "/brake", value: .null),
                PatchOperation(op: "add", path: "/players/-", value: .object(["name": .string("Anna")])),
                PatchOperation(op: "remove", path: "/endedReason"),
            ])
        let message = ServerMessage(sessionId: "abc", serverTimeMs: 42, event: .statePatch(patch))
        let object = try json(message)
        #expect(object["type"] as? String == "STATE_PATCH")
        let ops = try #require((object["payload"] as? [String: Any])?["ops"] as? [[String: Any]])
        #expect(ops[0]["value"] is NSNull)
        #expect(ops[1]["value"] as? [String: String] == ["name": "Anna"])
        #expect(ops[2].keys.sorted() == ["op", "path"])
        // Read back, a null value is nil (the same JSON null), and it is written again as null.
        let decoded = try JSONDecoder().decode(ServerMessage.self, from: JSONEncoder().encode(message))
        guard case .statePatch(let read) = decoded.event else { throw WireError.notAPatch }
        #expect(read.ops[0].value == nil)
        #expect(try json(decoded) as NSDictionary == object as NSDictionary)
    }

    private enum WireError: Error { case notAPatch }

    @Test("every server event round-trips through JSON with its type")
    func events() throws {
        var table = try Table(
            settings: Fixture.settings {
                $0.introMs = 0; $0.followupsPerDestination = 1
            })
        var all: [Effect] = []
        all += try table.host(.start(destinations: [Fixture.secretDestination(1)]))
        all += try table.player(0, .brakePull())
        all += try table.player(1, .brakePull())
        all += try table.player(0, .brakeAnswer(answerText: "x"))
        all += try table.host(.pause)
        all += try table.host(.resume)
        all += try table.host(.forceReveal)
        all += try table.host(.next)
        all += try table.host(.next)
        all += try table.host(.setMusicGain(gainDb: -12))
        all += try table.host(.next)
        all += try table.host(.next)
        all += try table.host(.kick(playerId: "p3"))
        all += try table.host(.end(reason: "host_ended"))
        var types = Set<String>()
        for case .send(let event, _) in all {
            let message = ServerMessage(sessionId: "s1", serverTimeMs: table.now, event: event)
            let decoded = try JSONDecoder().decode(ServerMessage.self, from: JSONEncoder().encode(message))
            #expect(decoded == message)
            types.insert(event.type)
        }
        #expect(
            types.isSuperset(of: [
                "CLUE_PRESENT", "BRAKE_ACCEPTED", "BRAKE_REJECTED", "BRAKE_ANSWER_LOCKED", "DESTINATION_REVEAL",
                "DESTINATION_RESULTS", "SCOREBOARD_UPDATE", "FOLLOWUP_PRESENT", "FOLLOWUP_LOCKED", "FOLLOWUP_RESULTS",
                "FINAL_RESULTS_PRESENT", "TIMER_SYNC", "AUDIO_PLAY", "AUDIO_STOP", "MUSIC_SET", "MUSIC_STOP",
                "MUSIC_GAIN_SET", "SFX_PLAY", "UI_EFFECT_TRIGGER", "SESSION_ENDED", "PLAYER_LEFT", "LOBBY_UPDATED",
            ]))
    }

    @Test("client messages decode by type and encode back")
    func clientMessages() throws {
        let all: [ClientMessage] = [
            .hello(.init(role: .player, authToken: "t", clientVersion: "1", deviceId: "d")), .resumeSession,
            .ping(.init(clientTimeMs: 5)), .hostStartGame, .hostNextClue, .hostNext, .hostSkip, .hostForceReveal,
            .hostPause, .hostResume, .hostKick(.init(playerId: "p")), .hostEndSession, .hostRestart,
            .musicGainSet(MusicGain(gainDb: -6)), .brakePull(.init(atClientMs: 9)),
            .brakePull(.init(atClientMs: 9, levelPoints: 6)),
            .brakeAnswerSubmit(.init(answerText: "Paris")), .followupAnswerSubmit(.init(index: 1, answerText: "x")),
            .playerLeave,
        ]
        for message in all {
            #expect(try ClientMessage.decode(message.encoded()) == message)
        }
        #expect(try ClientMessage.decode(Data(#"{"type":"HOST_NEXT"}"#.utf8)) == .hostNext)
        #expect(try ClientMessage.decode(Data(#"{"type":"BRAKE_PULL"}"#.utf8)) == .brakePull(.init()))
        #expect(try ClientMessage.decode(Data(#"{"type":"BRAKE_PULL","payload":null}"#.utf8)) == .brakePull(.init()))
        // atClientMs is informative: one that cannot be read does not lose the pull.
        #expect(
            try ClientMessage.decode(
                Data(#"{"type":"BRAKE_PULL","payload":{"atClientMs":"soon","levelPoints":4}}"#.utf8))
                == .brakePull(.init(levelPoints: 4)))
    }

    @Test(
        "bad client messages: BAD_MESSAGE or UNKNOWN_MESSAGE, with a reason",
        arguments: [
            (#"not json"#, ClientMessage.DecodeError.badMessage("expected a JSON object with a string \"type\"")),
            (#"{"payload":{}}"#, .badMessage("expected a JSON object with a string \"type\"")),
            (#"{"type":7}"#, .badMessage("expected a JSON object with a string \"type\"")),
            (#"[1,2]"#, .badMessage("expected a JSON object with a string \"type\"")),
            (#"{"type":"DANCE"}"#, .unknownType("DANCE")),
            (#"{"type":"PING"}"#, .badMessage("PING: missing payload")),
            (
                #"{"type":"PING","payload":{"clientTimeMs":"soon"}}"#,
                .badMessage("PING: payload.clientTimeMs must be Int64")
            ),
            (#"{"type":"HOST_KICK","payload":{}}"#, .badMessage("HOST_KICK: missing payload.playerId")),
            (
                #"{"type":"FOLLOWUP_ANSWER_SUBMIT","payload":{"index":1e40,"answerText":"x"}}"#,
                .badMessage("FOLLOWUP_ANSWER_SUBMIT: payload is invalid")
            ),
            (
                #"{"type":"BRAKE_PULL","payload":{"levelPoints":"ten"}}"#,
                .badMessage("BRAKE_PULL: payload.levelPoints must be Int")
            ),
            (#"{"type":"BRAKE_PULL","payload":5}"#, .badMessage("BRAKE_PULL: payload must be an object")),
            (
                #"{"type":"BRAKE_ANSWER_SUBMIT","payload":{"answerText":null}}"#,
                .badMessage("BRAKE_ANSWER_SUBMIT: payload.answerText must be String, not null")
            ),
        ])
    func badClientMessages(text: String, expected: ClientMessage.DecodeError) {
        #expect(throws: expected) { try ClientMessage.decode(Data(text.utf8)) }
    }

    @Test("settings: defaults, ranges, and the field that is out of range")
    func settings() throws {
        let base = Settings(packId: "p", language: .sv)
        #expect(base.destinationsCount == 3 && base.followupsPerDestination == 2 && base.followupSeconds == 20)
        #expect(base.brakeAnswerSeconds == 15 && base.introMs == 3_000 && base.finaleMs == 11_000 && !base.autoAdvance)
        let changed = try SettingsRequest(destinationsCount: 10, followupsPerDestination: 0, autoAdvance: true).applied(
            to: base)
        #expect(changed.destinationsCount == 10 && changed.followupsPerDestination == 0 && changed.autoAdvance)
        #expect(throws: SettingsError(field: "destinationsCount", reason: "must be between 1 and 10")) {
            try SettingsRequest(destinationsCount: 11).applied(to: base)
        }
        #expect(throws: SettingsError(field: "followupSeconds", reason: "must be between 5 and 120")) {
            try SettingsRequest(followupSeconds: 4).applied(to: base)
        }
        #expect(throws: SettingsError(field: "finaleMs", reason: "must be between 0 and 20000")) {
            try SettingsRequest(finaleMs: -1).applied(to: base)
        }
    }
}
