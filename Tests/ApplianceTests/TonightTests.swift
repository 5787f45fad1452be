import Core
import Foundation
import GRDB
import Testing

@testable import Appliance

/// Tonight's leaderboard of a kiosk: the venue's day, the ranking, and three kiosk games with a
/// restart of the box between them.
@Suite("Tonight's leaderboard", .serialized, .timeLimit(.minutes(5)))
struct TonightTests {
    @Test("a venue's day starts at --kiosk-day-starts in local time; HH:MM only")
    func venueDay() {
        #expect(Tonight.minutes("06:00") == 360 && Tonight.minutes("23:59") == 1439 && Tonight.minutes("00:00") == 0)
        for bad in ["6:00", "24:00", "06:60", "0600", "06:00:00", "", "ab:cd", "-1:00", "٠٦:٠٠"] {
            #expect(Tonight.minutes(bad) == nil, "\(bad)")
        }
        let tonight = Tonight(dayStartsMinutes: 6 * 60)
        // 2026-11-28 in Stockholm (UTC+1): 20:00 and the next 01:30 are one evening; 06:00 starts the next.
        let evening: Int64 = 1_795_892_400_000  // 2026-11-28T19:00:00Z = 20:00 local
        let day = tonight.day(atEpochMs: evening, utcOffsetSeconds: 3_600)
        #expect(tonight.day(atEpochMs: evening + 5 * 3_600_000 + 1_800_000, utcOffsetSeconds: 3_600) == day)
        #expect(tonight.day(atEpochMs: evening + 9 * 3_600_000 + 59_000, utcOffsetSeconds: 3_600) == day)
        #expect(tonight.day(atEpochMs: evening + 10 * 3_600_000, utcOffsetSeconds: 3_600) == day + 1)
        // The same instant is another venue day under another reset hour.
        #expect(
            Tonight(dayStartsMinutes: 0).day(atEpochMs: evening + 5 * 3_600_000, utcOffsetSeconds: 3_600) == day + 1)
        #expect(Tonight(dayStartsMinutes: 0).day(atEpochMs: -1, utcOffsetSeconds: 0) == -1)
    }

    @Test("points add up per phone over the night, ties share a rank, yesterday is not tonight")
    func ranking() async throws {
        let database = try BoxDatabase.inMemory()
        let tonight = Tonight(dayStartsMinutes: 6 * 60)
        let now: Int64 = 1_795_892_400_000
        try tonight.record(
            sessionId: "s1", game: 1, players: [("a", "Ada", 10), ("b", "Bo", 12), ("c", "Cy", 4)], at: now,
            in: database)
        // The same game again (a restart of the box) changes nothing.
        try tonight.record(sessionId: "s1", game: 1, players: [("a", "Ada", 10)], at: now + 1, in: database)
        try tonight.record(
            sessionId: "s1", game: 2, players: [("a", "Ada B", 2), ("c", "Cy", 8)], at: now + 60_000, in: database)
        // Yesterday's champion.
        try tonight.record(sessionId: "s0", game: 9, players: [("z", "Zed", 99)], at: now - 86_400_000, in: database)

        // Equal points share a rank, listed by fewer games, then by name; the phone's own row is
        // found below the top too.
        let (top, you) = try tonight.standings(at: now + 120_000, you: "c", limit: 2, in: database)
        #expect(
            top == [
                .init(rank: 1, name: "Bo", points: 12, games: 1, you: false),
                .init(rank: 1, name: "Ada B", points: 12, games: 2, you: false),
            ])
        #expect(you == .init(rank: 1, name: "Cy", points: 12, games: 2, you: true))
        try tonight.record(sessionId: "s1", game: 3, players: [("c", "Cy", 2)], at: now + 90_000, in: database)
        let all = try tonight.standings(at: now + 120_000, you: "b", in: database)
        #expect(all.top.map(\.name) == ["Cy", "Bo", "Ada B"] && all.top.map(\.rank) == [1, 2, 2])
        #expect(all.you?.name == "Bo" && all.you?.you == true)
        #expect(try tonight.standings(at: now + 120_000, you: nil, in: database).you == nil)
        // A month on, the night's results are gone with the next one recorded.
        let later = now + (Tonight.keptDays + 1) * 86_400_000
        try tonight.record(sessionId: "s9", game: 1, players: [("a", "Ada", 1)], at: later, in: database)
        let rows = try await database.writer.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM kioskResult") }
        #expect(rows == 1)
    }

    @Test("three kiosk games with a restart between: a phone's points add up under its latest name")
    func threeGames() async throws {
        let packs = FileManager.default.temporaryDirectory.appendingPathComponent("tripto-tonight-\(UUID())")
        defer { try? FileManager.default.removeItem(at: packs) }
        try FileManager.default.createDirectory(
            at: packs.appendingPathComponent("test-mini"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: PackCommandTests.root.appendingPathComponent("Tests/CoreTests/Fixtures/mini.json"),
            to: packs.appendingPathComponent("test-mini/pack.json"))
        let box = try BoxProcess(
            packs: packs.path,
            arguments: [
                // Long enough a lobby that Ada's leaving, or the box's stop, comes before the next game.
                "--kiosk", "--kiosk-lobby-seconds", "5", "--kiosk-end-seconds", "1", "--auto-pace", "0.1",
                "--kiosk-settings",
                #"{"packId":"test-mini","destinationsCount":1,"followupsPerDestination":1,"followupSeconds":5,"introMs":0,"finaleMs":1000}"#,
            ])
        try await box.start()
        var http = HTTP(base: box.baseURL)
        let kiosk = try await http.get("/v1/kiosk")
        let code = kiosk.string("joinCode")
        var joined = try await http.post(
            "/v1/sessions/\(kiosk.string("sessionId"))/join", ["name": "Ada", "joinCode": code])
        let cookie = try #require(joined.headers["set-cookie"]?.split(separator: ";").first.map(String.init))
        var points: [Int] = []

        /// Plays one kiosk game as Ada: pulls the brake at the first clue and names the place.
        func play(_ token: String) async throws -> TestSocket {
            let ada = TestSocket(url: box.webSocketURL, token: token)
            try await ada.expect("WELCOME")
            try await ada.expectSnapshot(timeout: .seconds(20)) { $0.phase == .clueLevel }
            ada.send(.brakePull(.init()))
            if (try? await ada.expect("BRAKE_ACCEPTED", timeout: .seconds(3))) != nil {
                ada.send(.brakeAnswerSubmit(.init(answerText: "Gothenburg")))
            }
            let finale = try await ada.expect("FINAL_RESULTS_PRESENT", timeout: .seconds(30))
            guard case .finalResultsPresent(let results) = finale.event else { throw HarnessError.unexpected("finale") }
            points.append(results.standingsFull.first { $0.playerId == joined.string("playerId") }?.points ?? -1)
            try await ada.expectSnapshot(timeout: .seconds(10)) { $0.phase == .lobby }
            return ada
        }

        try await play(joined.string("playerAuthToken")).close()
        await box.stop()
        try await box.start()
        http = HTTP(base: box.baseURL)
        let second = try await play(joined.string("playerAuthToken"))
        // Ada leaves and comes back from the same phone under another name: the same guest tonight.
        second.send(.playerLeave)
        _ = try await second.closeCode()
        joined = try await http.call(
            "POST", "/v1/sessions/\(kiosk.string("sessionId"))/join", json: ["name": "Ada B", "joinCode": code],
            headers: ["Cookie": cookie])
        #expect(joined.status == 201 && joined.headers["set-cookie"] == nil, "the phone keeps its cookie")
        try await play(joined.string("playerAuthToken")).close()

        #expect(points.count == 3 && points.allSatisfy { $0 >= 0 }, "\(points)")
        let mine = try await http.call("GET", "/v1/kiosk/tonight", headers: ["Cookie": cookie])
        let top = try #require(mine.json["top"] as? [[String: Any]])
        #expect(top.count == 1, "\(mine.text)")
        #expect(top.first?["name"] as? String == "Ada B" && top.first?["games"] as? Int == 3)
        #expect(top.first?["points"] as? Int == points.reduce(0, +) && top.first?["you"] as? Bool == true)
        #expect((mine.json["you"] as? [String: Any])?["rank"] as? Int == 1)
        #expect(mine.json["sessionId"] as? String == kiosk.string("sessionId"))
        let stranger = try await http.get("/v1/kiosk/tonight")
        #expect(stranger.json["you"] == nil || stranger.json["you"] is NSNull)
        #expect((stranger.json["top"] as? [[String: Any]])?.first?["you"] as? Bool == false)
        await box.stop()
    }
}
