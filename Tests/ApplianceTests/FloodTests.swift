import Core
import Foundation
import Testing

@testable import Appliance

/// A phone that floods the socket and a phone that stops reading: neither may slow the others down
/// or make the box hold more and more memory.
@Suite("Floods and slow clients", .serialized)
struct FloodTests {
    /// How long each of the other clients takes to hear of a host's move: the host pauses and
    /// resumes `cycles` times, and every arrival of the resulting snapshot is timed from the send.
    static func fanOut(_ table: LiveTable, listeners: [TestSocket], cycles: Int) async throws -> [Duration] {
        var latencies: [Duration] = []
        for cycle in 0..<cycles {
            let paused = cycle % 2 == 0
            let sent = ContinuousClock.now
            table.host.send(paused ? .hostPause : .hostResume)
            for socket in listeners {
                let arrived = try await socket.expectArrival("STATE_SNAPSHOT") {
                    if case .stateSnapshot(let view) = $0.event { return view.paused == paused }
                    return false
                }
                latencies.append(arrived - sent)
            }
            try await Task.sleep(for: .milliseconds(40))
        }
        return latencies
    }

    static func median(_ values: [Duration]) -> Duration { values.sorted()[values.count / 2] }

    static func milliseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
    }

    @Test(
        "a client sending 1,000 messages a second is held to its budget, and the others hear events as fast as before")
    func flood() async throws {
        let box = try BoxProcess()
        try box.start()
        defer { box.stop() }
        let table = try await LiveTable.open(box, settings: ["introMs": 0], players: ["Anna", "Björn", "Cecilia"])
        table.host.send(.hostStartGame)
        try await table.allSee(.clueLevel, level: 10)
        let flooder = table.players[0].socket
        let listeners = [table.tv!, table.players[1].socket, table.players[2].socket]
        _ = try await Self.fanOut(table, listeners: listeners, cycles: 6)  // warm up
        let normal = try await Self.fanOut(table, listeners: listeners, cycles: 30)

        // 1,000 PINGs a second for 4 s, each of which would get its own PONG if it were served.
        let seconds = 4
        let flood = Task {
            let start = ContinuousClock.now
            var sent = 0
            while sent < seconds * 1000 {
                let due = min(seconds * 1000, Int(Self.milliseconds(ContinuousClock.now - start)))
                while sent < due {
                    flooder.send(.ping(.init(clientTimeMs: Int64(sent))))
                    sent += 1
                }
                try await Task.sleep(for: .milliseconds(2))
            }
            return ContinuousClock.now - start
        }
        try await Task.sleep(for: .milliseconds(300))
        let during = try await Self.fanOut(table, listeners: listeners, cycles: 30)
        let floodTime = try await flood.value
        try await Task.sleep(for: .milliseconds(500))

        // Served: the burst of 40 plus 20 a second; the rest refused with at most one warning a second.
        let texts = await flooder.allTexts()
        let pongs = texts.filter { $0.contains("\"PONG\"") }.count
        let warnings = texts.filter { $0.contains("\"RATE_LIMITED\"") }.count
        let budget = 40 + Int(20 * Self.milliseconds(floodTime) / 1000) + 5
        #expect(pongs <= budget, "\(pongs) PINGs answered, budget \(budget)")
        #expect(pongs >= 40)
        #expect(warnings >= seconds - 1 && warnings <= seconds + 2, "\(warnings) RATE_LIMITED warnings")
        // The flooder is still connected and served once it slows down.
        try await Task.sleep(for: .seconds(1))
        flooder.send(.ping(.init(clientTimeMs: -1)))
        try await flooder.expect("PONG") { $0.payloadObject["clientTimeMs"] as? Int == -1 }

        let (before, while_) = (Self.median(normal), Self.median(during))
        print(
            "flood: fan-out median \(Self.milliseconds(before)) ms normally, \(Self.milliseconds(while_)) ms during "
                + "1,000 msg/s from one client (\(seconds * 1000) sent, \(pongs) served, \(warnings) warnings)")
        // Within twice the normal median; a millisecond of slack, since a normal median on loopback
        // is itself around a millisecond and the clocks tick in those.
        #expect(while_ <= before * 2 + .milliseconds(1), "median \(while_) during the flood against \(before)")
        table.closeAll()
    }

    @Test("a client that stops reading is dropped with a bounded backlog, and the box's memory stays flat")
    func slowReader() async throws {
        let box = try BoxProcess()
        try box.start()
        defer { box.stop() }
        var table = try await LiveTable.open(box, players: ["Anna"], tv: false)
        let joined = try await table.http.post(
            "/v1/sessions/\(table.sessionId)/join", ["name": "Sloth", "joinToken": table.joinToken])
        let slothId = joined.string("playerId")
        let sloth = try SilentPeer(port: box.port, token: joined.string("playerAuthToken"), receiveBuffer: 4096)
        try await table.host.expectSnapshot { $0.players.contains { $0.playerId == slothId && $0.isConnected } }
        // The box's warning names the participant it gave up on.
        func slothDropped() -> Bool {
            box.log.split(separator: "\n").contains {
                $0.contains("connection dropped: not reading") && $0.contains(slothId)
            }
        }
        let residentBefore = box.residentKiB
        let hostBytesBefore = await table.host.allTexts().reduce(0) { $0 + $1.utf8.count }
        let start = ContinuousClock.now
        // Players who come and go: each arrival and departure is news for everyone, Sloth included.
        // Thirty of them make every snapshot a few kilobytes, so Sloth's buffers fill in seconds.
        for index in 0..<30 { try await table.addPlayer("Guest \(index)") }
        let guests = Array(table.players.dropFirst())
        for guest in guests { guest.socket.close() }
        try await table.host.expectSnapshot { view in
            view.players.allSatisfy { !$0.name.hasPrefix("Guest") || !$0.isConnected }
        }
        // Six at a time come and go until the box gives up on Sloth (or 45 s pass).
        let cycles = try await withThrowingTaskGroup(of: Int.self) { group in
            for lane in 0..<6 {
                group.addTask {
                    var cycles = 0
                    while !slothDropped(), ContinuousClock.now - start < .seconds(45) {
                        let guest = guests[(lane + 6 * cycles) % guests.count]
                        let socket = TestSocket(url: box.webSocketURL, token: guest.token)
                        try await socket.expect("WELCOME")
                        socket.close()
                        _ = try await socket.closeCode()
                        cycles += 1
                    }
                    return cycles
                }
            }
            return try await group.reduce(0, +)
        }
        let hostBytes = await table.host.allTexts().reduce(0) { $0 + $1.utf8.count } - hostBytesBefore
        let residentAfter = box.residentKiB

        #expect(slothDropped(), "Sloth was not dropped for its backlog")
        try await table.host.expectSnapshot { $0.players.first { $0.playerId == slothId }?.isConnected == false }
        let (backlog, closed) = sloth.drain(timeout: .seconds(3))
        #expect(closed)
        // What was in flight for Sloth when it was dropped: at most the kernel's send buffer (its
        // autotuning limit), NIO's write buffer and the connection's bounded queue of messages.
        let largest = await table.host.allTexts().map(\.utf8.count).max() ?? 0
        let kernel =
            (try? String(contentsOfFile: "/proc/sys/net/ipv4/tcp_wmem", encoding: .utf8))
            .flatMap { $0.split(whereSeparator: \.isWhitespace).last.flatMap { Int($0) } } ?? 4 << 20
        let bound = kernel + 64 * 1024 + Connection.queueLimit * largest
        #expect(backlog <= bound, "Sloth got \(backlog) bytes, more than the \(bound) in flight at most")
        #expect(
            residentAfter - residentBefore < 8 * 1024, "resident memory grew by \(residentAfter - residentBefore) KiB")
        print(
            "slow reader: \(cycles) arrivals and departures in \(ContinuousClock.now - start), \(hostBytes) bytes "
                + "broadcast; Sloth was dropped holding \(backlog) bytes (bound \(bound)); box RSS \(residentBefore) → "
                + "\(residentAfter) KiB")
        sloth.close()
        table.closeAll()
    }
}
