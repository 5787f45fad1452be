import Core
import Foundation

@testable import Console

/// Projections as the box would send them, built from JSON so they go through the wire types' decoder.
enum Fixture {
    static let joinUrl = "http://192.168.100.200:8080/join/abcdefghijklmnop?t=AbCdEfGhIjKlMnOpQrStUvWxYz012345"
    static let now: Int64 = 1_800_000_000_000

    static func player(_ id: String, _ name: String, points: Int = 0) -> [String: Any] {
        ["playerId": id, "name": name, "isConnected": true, "points": points]
    }

    static func timer(seconds: Int64 = 20) -> [String: Any] {
        ["timerId": "t1", "startAtServerMs": now, "durationMs": seconds * 1000, "phase": "FOLLOWUP_QUESTION"]
    }

    /// A projection in `phase`; `change` edits the JSON before it is decoded.
    static func projection(
        _ phase: Phase, players count: Int = 3, change: (inout [String: Any]) -> Void = { _ in }
    ) -> Projection {
        let settings = try! JSONSerialization.jsonObject(
            with: try! JSONEncoder().encode(Settings(packId: "demo", language: .sv)))
        let players = (0..<count).map { player("p_\($0)", "Player \($0 + 1)", points: 10 - $0) }
        var json: [String: Any] = [
            "version": 7, "phase": phase.rawValue, "paused": false, "joinCode": "ABC234", "joinUrl": joinUrl,
            "settings": settings, "hasHost": true, "hasTv": true, "players": players,
            "lockedAnswers": [],
            "scoreboard": players.map { ["playerId": $0["playerId"]!, "name": $0["name"]!, "points": $0["points"]!] },
            "timers": [],
        ]
        switch phase {
        case .lobby, .preparingRound, .scoreboard:
            break
        case .roundIntro, .clueLevel, .pausedForBrake:
            json["round"] = ["index": 1, "total": 3]
            json["clue"] = [
                "levelPoints": 8, "levelIndex": 2, "totalLevels": 5,
                "clueText":
                    "Här finns en gammal borg och en lång strand där många badar om sommaren, och tåget går ända fram.",
            ]
        case .revealDestination:
            json["round"] = [
                "index": 1, "total": 3,
                "destination": ["name": "Visby", "country": "Sverige", "revealText": "Rosornas stad på Gotland."],
                "results": [
                    [
                        "playerId": "p_0", "answerText": "Visby", "isCorrect": true, "pointsAwarded": 8,
                        "lockedAtLevelPoints": 8,
                    ]
                ],
            ]
        case .followupQuestion:
            json["round"] = ["index": 1, "total": 3, "destination": ["name": "Visby", "country": "Sverige"]]
            json["followup"] = [
                "index": 1, "total": 2, "questionText": "Vilket år blev Visby världsarv?", "options": ["1995", "2001"],
                "timer": timer(), "isOpen": true, "answeredCount": 1,
            ]
        case .finalResults, .roundEnd:
            json["finalResults"] = [
                "winnerPlayerId": "p_0", "isTie": false, "tieWinners": [],
                "standingsTop": json["scoreboard"]!, "standingsFull": json["scoreboard"]!,
            ]
        }
        change(&json)
        return try! JSONDecoder().decode(Projection.self, from: JSONSerialization.data(withJSONObject: json))
    }

    static func snapshot(_ projection: Projection) -> ServerMessage {
        ServerMessage(sessionId: "abcdefghijklmnop", serverTimeMs: now, event: .stateSnapshot(projection))
    }

    static func state(_ role: Role, _ projection: Projection, playerId: String? = "p_0") -> ConsoleState {
        var state = ConsoleState(role: role, joinCode: "ABC234", playerId: role == .player ? playerId : nil)
        state.receive(snapshot(projection), now: now)
        return state
    }
}
