import Core
import Foundation
import Testing

@testable import Console

/// Keys as the terminal sends them, and what each role's keys ask the box.
@Suite("console keys", .timeLimit(.minutes(5)))
struct ControlsTests {
    @Test("bytes become keys: CR LF is one Enter, escape sequences are skipped, UTF-8 letters stay whole")
    func decoding() {
        #expect(Key.decode([13, 10]) == [.enter])
        #expect(Key.decode([13, 13]) == [.enter, .enter])
        #expect(Key.decode([27, 91, 65, 97]) == [.other, .character("a")])
        #expect(Key.decode([27]) == [.escape])
        #expect(Key.decode([3]) == [.interrupt])
        #expect(Key.decode([127, 8]) == [.backspace, .backspace])
        #expect(Key.decode(Array("Å ö".utf8)) == [.character("Å"), .character(" "), .character("ö")])
    }

    @Test("Ctrl-C leaves from every role, whatever is being typed", arguments: Role.allCases)
    func interrupt(role: Role) {
        var state = Fixture.state(role, Fixture.projection(.followupQuestion))
        #expect(state.press(.interrupt) == .quit)
    }

    @Test("a player's Space or Enter pulls the brake during a clue, and only then, naming the clue shown")
    func brake() {
        var state = Fixture.state(.player, Fixture.projection(.clueLevel))
        #expect(state.press(.character(" ")) == .send(.brakePull(.init(levelPoints: 8))))
        #expect(state.press(.enter) == .send(.brakePull(.init(levelPoints: 8))))
        var lobby = Fixture.state(.player, Fixture.projection(.lobby))
        #expect(lobby.press(.character(" ")) == nil)
        #expect(lobby.notice != nil)
    }

    @Test("a captain's keys (CONTRACT 4.2) start, pause, resume, play again and end; nobody else's, nor with a host")
    func captainKeys() {
        let captained = Fixture.projection(.lobby) {
            $0["captainPlayerId"] = "p_0"
            $0["hasHost"] = false
        }
        var captain = Fixture.state(.player, captained)
        #expect(captain.isCaptain)
        #expect(captain.press(.character("s")) == .send(.hostStartGame))
        #expect(captain.press(.character("p")) == .send(.hostPause))
        #expect(captain.press(.character("t")) == .send(.hostRestart))
        // Ending asks first, as it does the host: any key but y keeps the session.
        #expect(captain.press(.character("e")) == nil)
        #expect(captain.notice?.contains("Press y") == true)
        #expect(captain.press(.character("n")) == nil)
        #expect(captain.press(.character("e")) == nil)
        #expect(captain.press(.character("y")) == .send(.hostEndSession))
        var paused = Fixture.state(
            .player,
            Fixture.projection(.clueLevel) {
                $0["captainPlayerId"] = "p_0"
                $0["hasHost"] = false
                $0["paused"] = true
            })
        #expect(paused.press(.character("p")) == .send(.hostResume))
        var other = Fixture.state(.player, captained, playerId: "p_1")
        #expect(other.press(.character("s")) == nil)
        var hosted = Fixture.state(
            .player,
            Fixture.projection(.lobby) {
                $0["captainPlayerId"] = "p_0"
                $0["hasHost"] = true
            })
        #expect(hosted.press(.character("s")) == nil)
    }

    @Test("the brake owner types the answer; Enter sends it and keeps it until locked; edits; paused, it waits")
    func brakeAnswer() {
        let projection = Fixture.projection(.pausedForBrake) {
            $0["brake"] = ["brakeOwnerPlayerId": "p_0", "levelPoints": 8, "deadlineServerMs": Fixture.now + 9000]
        }
        var state = Fixture.state(.player, projection)
        #expect(state.answerTarget == .brake)
        for key in Key.decode(Array("Visbx".utf8)) { #expect(state.press(key) == nil) }
        _ = state.press(.backspace)
        _ = state.press(.character("y"))
        #expect(state.input == "Visby")
        #expect(state.press(.enter) == .send(.brakeAnswerSubmit(.init(answerText: "Visby"))))
        // Kept until the box locks it: refused (say, paused meanwhile), it can be sent again.
        #expect(state.input == "Visby")
        #expect(state.press(.enter) == .send(.brakeAnswerSubmit(.init(answerText: "Visby"))))
        _ = state.press(.character("x"))
        _ = state.press(.escape)
        #expect(state.input.isEmpty)
        #expect(state.press(.enter) == nil)

        // While the host has paused, Enter keeps the line and says why nothing was sent.
        let paused = Fixture.projection(.pausedForBrake) {
            $0["paused"] = true
            $0["brake"] = ["brakeOwnerPlayerId": "p_0", "levelPoints": 8, "deadlineServerMs": Fixture.now + 9000]
        }
        var waiting = Fixture.state(.player, paused)
        for key in Key.decode(Array("Visby".utf8)) { _ = waiting.press(key) }
        #expect(waiting.press(.enter) == nil)
        #expect(waiting.input == "Visby")
        #expect(waiting.notice?.contains("paused") == true)

        // Another player's brake: typing does nothing, Space is a (refused) pull.
        let other = Fixture.state(.player, projection, playerId: "p_1")
        #expect(other.answerTarget == nil)
    }

    @Test("a followup answer goes with its index; a number picks an option")
    func followup() {
        var state = Fixture.state(.player, Fixture.projection(.followupQuestion))
        #expect(state.answerTarget == .followup(index: 1))
        for key in Key.decode(Array("1995 ".utf8)) { _ = state.press(key) }
        #expect(state.press(.enter) == .send(.followupAnswerSubmit(.init(index: 1, answerText: "1995"))))
        _ = state.press(.character("2"))
        #expect(state.press(.enter) == .send(.followupAnswerSubmit(.init(index: 1, answerText: "2001"))))
    }

    @Test("a number that is no option of a multiple-choice followup is refused with a hint; an option's words are sent")
    func followupNoSuchOption() {
        var state = Fixture.state(.player, Fixture.projection(.followupQuestion))
        _ = state.press(.character("9"))
        #expect(state.press(.enter) == nil)
        #expect(state.notice == "There is no option 9: choose 1–2, or type the answer")
        #expect(state.input == "9")
        _ = state.press(.escape)
        for key in Key.decode(Array("2001".utf8)) { _ = state.press(key) }
        #expect(state.press(.enter) == .send(.followupAnswerSubmit(.init(index: 1, answerText: "2001"))))
        // Without options a number is an answer like any other (a year, a count).
        var open = Fixture.state(
            .player,
            Fixture.projection(.followupQuestion) {
                var followup = $0["followup"] as! [String: Any]
                followup["options"] = nil
                $0["followup"] = followup
            })
        _ = open.press(.character("9"))
        #expect(open.press(.enter) == .send(.followupAnswerSubmit(.init(index: 1, answerText: "9"))))
    }

    @Test("Space while the game is paused, or once the answer is locked, says so and sends nothing")
    func brakeRefusedHere() {
        var paused = Fixture.state(.player, Fixture.projection(.clueLevel) { $0["paused"] = true })
        #expect(paused.press(.character(" ")) == nil)
        #expect(paused.notice == "The game is paused: the brake works again once it resumes")
        var locked = Fixture.state(
            .player,
            Fixture.projection(.clueLevel) {
                $0["lockedAnswers"] = [["playerId": "p_0", "lockedAtLevelPoints": 10]]
            })
        #expect(locked.press(.enter) == nil)
        #expect(locked.notice == "You have already answered this destination")
    }

    @Test("a new question starts with an empty answer line")
    func inputClearedOnNewQuestion() {
        var state = Fixture.state(.player, Fixture.projection(.followupQuestion))
        _ = state.press(.character("x"))
        let next = Fixture.projection(.followupQuestion) {
            $0["version"] = 8
            var followup = $0["followup"] as! [String: Any]
            followup["index"] = 2
            $0["followup"] = followup
        }
        state.receive(Fixture.snapshot(next), now: Fixture.now)
        #expect(state.input.isEmpty)
        #expect(state.answerTarget == .followup(index: 2))
    }

    @Test(
        "a refused pull says why: during a clue not_allowed is a clue that moved on, or the player's own brake that ran out"
    )
    func refusedPulls() {
        var state = Fixture.state(.player, Fixture.projection(.clueLevel))
        func refused(_ reason: String) -> String? {
            let text =
                #"{"type":"BRAKE_REJECTED","sessionId":"abcdefghijklmnop","serverTimeMs":1,"payload":{"reason":"\#(reason)"}}"#
            state.receive(try! JSONDecoder().decode(ServerMessage.self, from: Data(text.utf8)), now: Fixture.now)
            return state.notice
        }
        #expect(refused("not_allowed") == "Not on this clue: it just changed, or your brake ran out on it")
        #expect(refused("already_paused") == "Too late: the brake is already pulled")
        state.receive(Fixture.snapshot(Fixture.projection(.revealDestination) { $0["version"] = 9 }), now: Fixture.now)
        #expect(refused("not_allowed") == "The brake works only while a clue is showing")
    }

    @Test("the host has one key per command")
    func hostKeys() {
        var state = Fixture.state(.host, Fixture.projection(.clueLevel))
        let expected: [(Key, ClientMessage)] = [
            (.character("s"), .hostStartGame), (.character(" "), .hostNext), (.character("n"), .hostNext),
            (.enter, .hostNext), (.character("c"), .hostNextClue), (.character("k"), .hostSkip),
            (.character("r"), .hostForceReveal), (.character("p"), .hostPause), (.character("t"), .hostRestart),
            (.character("-"), .musicGainSet(MusicGain(gainDb: -12))),
        ]
        for (key, message) in expected { #expect(state.press(key) == .send(message), "\(key)") }
        let paused = Fixture.projection(.clueLevel) { $0["paused"] = true }
        var pausedState = Fixture.state(.host, paused)
        #expect(pausedState.press(.character("p")) == .send(.hostResume))
        #expect(state.press(.character("q")) == .quit)
    }

    @Test("kicking takes the player's number; ending takes a y")
    func hostTwoKeyCommands() {
        var state = Fixture.state(.host, Fixture.projection(.lobby))
        #expect(state.press(.character("x")) == nil)
        #expect(state.hostMode == .kick)
        #expect(state.press(.character("2")) == .send(.hostKick(.init(playerId: "p_1"))))
        #expect(state.hostMode == .commands)
        _ = state.press(.character("x"))
        #expect(state.press(.character("9")) == nil)
        #expect(state.press(.character("e")) == nil)
        #expect(state.press(.character("n")) == nil)
        _ = state.press(.character("e"))
        #expect(state.press(.character("y")) == .send(.hostEndSession))
    }

    @Test("a snapshot older than the one shown is ignored (a reconnect's late message)")
    func olderSnapshot() {
        var state = Fixture.state(.tv, Fixture.projection(.clueLevel))
        state.receive(Fixture.snapshot(Fixture.projection(.lobby) { $0["version"] = 3 }), now: Fixture.now)
        #expect(state.phase == .clueLevel)
    }
}
