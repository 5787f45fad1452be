import Core
import Foundation
import GRDB
import Testing

/// What the box does on its own: ending sessions nobody uses, noticing peers that vanished,
/// and drawing QR codes that a phone can read.
@Suite("Housekeeping", .serialized, .timeLimit(.minutes(5)))
struct HousekeepingTests {
    @Test("a session with nobody connected ends after the idle timeout; a connected one does not")
    func idleSessions() async throws {
        // Long enough that the busy session is surely connected before it could idle out, on a
        // loaded machine too; the idle one is made only then, so its timer is the later one.
        let box = try BoxProcess(arguments: ["--idle-timeout", "5"])
        try await box.start()
        let http = HTTP(base: box.baseURL)
        let busy = try await http.post("/v1/sessions")
        let socket = TestSocket(url: box.webSocketURL, token: busy.string("hostAuthToken"))
        try await socket.expect("WELCOME")
        let asked = ContinuousClock.now
        let idle = try await http.post("/v1/sessions")
        let ended = try await poll(for: .seconds(20), every: .milliseconds(200)) {
            try await http.get("/v1/sessions/by-code/\(idle.string("joinCode"))").status == 404 ? true : nil
        }
        #expect(ended == true)
        #expect(ContinuousClock.now - asked >= .seconds(5), "ended before its idle timeout")
        let join = try await http.post(
            "/v1/sessions/\(idle.string("sessionId"))/join", ["name": "A", "joinCode": idle.string("joinCode")])
        #expect(join.error == "SESSION_ENDED")
        #expect(try await http.get("/v1/sessions/by-code/\(busy.string("joinCode"))").status == 200)
        #expect(try await http.get("/healthz").json["sessions"] as? Int == 1)
        socket.close()
    }

    @Test("an ended session is kept for --keep-ended-days, then deleted with its participants and log")
    func oldEndedSessionsDeleted() async throws {
        let box = try BoxProcess(arguments: ["--keep-ended-days", "2"])
        try await box.start()
        let http = HTTP(base: box.baseURL)
        var endedIds: [String] = []
        for _ in 0..<2 {
            let created = try await http.post("/v1/sessions")
            let id = created.string("sessionId")
            let token = created.string("hostAuthToken")
            #expect(
                try await http.call("DELETE", "/v1/sessions/\(id)", headers: ["Authorization": "Bearer \(token)"])
                    .status == 204)
            endedIds.append(id)
        }
        let ended = endedIds
        let live = try await http.post("/v1/sessions").string("sessionId")
        await box.stop()

        // The first ended three days ago, the second one day ago.
        let database = try DatabaseQueue(path: box.databasePath)
        try await database.write { db in
            for (id, days) in zip(ended, [3, 1]) {
                try db.execute(
                    sql: "UPDATE session SET endedAt = endedAt - ? WHERE id = ?", arguments: [days * 86_400_000, id])
            }
        }
        try await box.start()
        let restarted = HTTP(base: box.baseURL)
        // Deleted once the box serves, not before.
        #expect(
            try await poll(for: .seconds(10), every: .milliseconds(50)) {
                try await restarted.get("/v1/sessions/\(ended[0])/qr.svg").status == 404 ? true : nil
            } == true)
        #expect(try await restarted.get("/v1/sessions/\(ended[1])/qr.svg").status == 410)
        #expect(try await restarted.get("/v1/sessions/\(live)/qr.svg").status == 200)
        let rows = try await database.read { db in
            try ["session", "participant", "command"].map { table in
                try ended.map { id in
                    try Int.fetchOne(
                        db, sql: "SELECT COUNT(*) FROM \(table) WHERE \(table == "session" ? "id" : "sessionId") = ?",
                        arguments: [id]) ?? -1
                }
            }
        }
        // session, participant, command: none left of the old one; the recent one keeps all three.
        #expect(rows.map { $0[0] } == [0, 0, 0])
        #expect(rows.allSatisfy { $0[1] > 0 })
        #expect(try await database.read { db in try String.fetchOne(db, sql: "PRAGMA integrity_check") } == "ok")
        await box.stop()
    }

    @Test("a half-open peer (no reads, no pongs) is shown as not connected within 15 s, and its socket closed")
    func deadPeer() async throws {
        let box = try BoxProcess()
        try await box.start()
        let table = try await LiveTable.open(box, players: [], tv: false)
        let joined = try await table.http.post(
            "/v1/sessions/\(table.sessionId)/join", ["name": "Ghost", "joinToken": table.joinToken])
        let ghost = try await SilentPeer.connect(port: box.port, token: joined.string("playerAuthToken"))
        // Timed on the box's clock, from the snapshot that shows the ghost come to the one that shows
        // it gone: a loaded machine's delivery delays do not count.
        func snapshot(connected: Bool, timeout: Duration) async throws -> ServerMessage {
            try await table.host.expect("STATE_SNAPSHOT", timeout: timeout) { message in
                guard case .stateSnapshot(let projection) = message.event else { return false }
                return projection.players.first?.isConnected == connected
            }
        }
        let came = try await snapshot(connected: true, timeout: .seconds(10))
        let gone = try await snapshot(connected: false, timeout: .seconds(30))
        #expect(gone.serverTimeMs - came.serverTimeMs < 15_000)
        #expect(try await ghost.drain(timeout: .seconds(5)).closedByBox, "the box still holds the dead socket")
        ghost.close()
        table.closeAll()
    }

    @Test("the join QR code decodes (zbarimg) to the session's join URL")
    func qrDecodes() async throws {
        let box = try BoxProcess()
        try await box.start()
        let http = HTTP(base: box.baseURL)
        let created = try await http.post("/v1/sessions")
        let svg = try await http.get("/v1/sessions/\(created.string("sessionId"))/qr.svg").text
        let decoded = try await QRImage.decode(svg: svg)
        #expect(decoded == created.string("joinUrl"))
    }
}

/// Turns the box's QR SVG back into modules and reads it with zbarimg, as a phone camera would.
enum QRImage {
    static func decode(svg: String) async throws -> String {
        guard let box = svg.range(of: #"viewBox="0 0 (\d+) \d+""#, options: .regularExpression),
            let size = Int(svg[box].split(separator: " ")[2]),
            let pathRange = svg.range(of: #" d="[^"]*""#, options: .regularExpression)
        else { throw HarnessError.unexpected("not a QR SVG") }
        var dark = [[Bool]](repeating: [Bool](repeating: false, count: size), count: size)
        let path = svg[pathRange].dropFirst(4).dropLast()
        // Each run is "M<x> <y>h<w>v1h-<w>z".
        for run in path.split(separator: "z") {
            let numbers = run.split(whereSeparator: { "Mhv ".contains($0) }).compactMap { Int($0) }
            guard numbers.count >= 3 else { continue }
            for x in numbers[0]..<(numbers[0] + numbers[2]) { dark[numbers[1]][x] = true }
        }
        let scale = 8
        var pbm = "P1\n\(size * scale) \(size * scale)\n"
        for row in dark {
            let line = row.flatMap { Array(repeating: $0 ? "1" : "0", count: scale) }.joined(separator: " ")
            for _ in 0..<scale { pbm += line + "\n" }
        }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("qr-\(UUID().uuidString).pbm")
        try pbm.write(to: file, atomically: true, encoding: .ascii)
        defer { try? FileManager.default.removeItem(at: file) }
        // Exits with 4 when it finds no code, which Shell.run reports. The code is the last line:
        // zbarimg complains before it about the D-Bus it cannot reach.
        let output = try await Shell.run("/usr/bin/zbarimg", ["-q", "--raw", file.path])
        return String(output.split(separator: "\n").last ?? "").trimmingCharacters(in: .whitespaces)
    }
}
