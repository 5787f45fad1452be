import Core
import Foundation
import Testing

/// A phone that floods the socket and a phone that stops reading: neither may slow the others down
/// or make the box hold more and more memory.
@Suite("Floods and slow clients", .serialized, .timeLimit(.minutes(5)))
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

    /// The `fraction` quantile (0.5: the median).
    static func quantile(_ values: [Duration], _ fraction: Double) -> Duration {
        values.sorted()[min(values.count - 1, Int(Double(values.count) * fraction))]
    }

    static func milliseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
    }

    @Test(
        "a client sending 1,000 messages a second is held to its budget, and the others hear events as fast as before")
    func flood() async throws {
        let box = try BoxProcess()
        try await box.start()
        defer { box.terminate() }
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

        let (before, while_) = (Self.quantile(normal, 0.5), Self.quantile(during, 0.5))
        let (before90, while90) = (Self.quantile(normal, 0.9), Self.quantile(during, 0.9))
        print(
            "flood: fan-out median \(Self.milliseconds(before)) ms, p90 \(Self.milliseconds(before90)) ms normally; "
                + "median \(Self.milliseconds(while_)) ms, p90 \(Self.milliseconds(while90)) ms during 1,000 msg/s "
                + "from one client (\(seconds * 1000) sent, \(pongs) served, \(warnings) warnings)")
        // Within twice the normal figures; a millisecond or two of slack, since a normal median on
        // loopback is itself a few milliseconds and a scheduler tick is one.
        #expect(while_ <= before * 2 + .milliseconds(1), "median \(while_) during the flood against \(before)")
        #expect(while90 <= before90 * 2 + .milliseconds(2), "p90 \(while90) during the flood against \(before90)")
        table.closeAll()
    }

    @Test("a client that stops reading is dropped with a bounded backlog, and the box's memory stays flat")
    func slowReader() async throws {
        let box = try BoxProcess(arguments: ["--max-players", "200"])
        try await box.start()
        defer { box.terminate() }
        let table = try await LiveTable.open(box, players: ["Anna"], tv: false)
        let joined = try await table.http.post(
            "/v1/sessions/\(table.sessionId)/join", ["name": "Sloth", "joinToken": table.joinToken])
        let slothId = joined.string("playerId")
        let sloth = try await SilentPeer.connect(
            port: box.port, token: joined.string("playerAuthToken"), receiveBuffer: 4096)
        try await table.host.expectSnapshot { $0.players.contains { $0.playerId == slothId && $0.isConnected } }
        // The box's warning names the participant it gave up on.
        func slothDropped() -> Bool {
            box.log.split(separator: "\n").contains {
                $0.contains("connection dropped: not reading") && $0.contains(slothId)
            }
        }
        // Players who join and are kicked by the host, six lanes at a time: each join and each kick
        // is news for everyone, Sloth included, and a hundred players (who never connect) make every
        // snapshot about 12 KB, so Sloth's buffers fill in seconds, before the keepalive would cut
        // it off. (Joins and kicks, not connections: those are told to the others at most every
        // 100 ms.) The host goes a little over its 20 messages a second, within its burst of 40.
        // Until the box gives up on Sloth, or 45 s pass.
        let (http, host, sessionId, joinToken) = (table.http, table.host!, table.sessionId, table.joinToken)
        for index in 0..<100 {
            let guest = try await http.post(
                "/v1/sessions/\(sessionId)/join", ["name": "Guest \(index)", "joinToken": joinToken])
            guard guest.status == 201 else { throw HarnessError.unexpected("join: \(guest.text)") }
        }
        let residentBefore = try box.memoryKiB()
        let hostBytesBefore = await table.host.allTexts().reduce(0) { $0 + $1.utf8.count }
        let start = ContinuousClock.now
        let cycles = try await withThrowingTaskGroup(of: Int.self) { group in
            for lane in 0..<6 {
                group.addTask {
                    var cycles = 0
                    while !slothDropped(), ContinuousClock.now - start < .seconds(45) {
                        let passer = try await http.post(
                            "/v1/sessions/\(sessionId)/join",
                            ["name": "Passer \(lane)-\(cycles)", "joinToken": joinToken])
                        guard passer.status == 201 else { throw HarnessError.unexpected("join: \(passer.text)") }
                        host.send(.hostKick(.init(playerId: passer.string("playerId"))))
                        try await Task.sleep(for: .milliseconds(250))
                        cycles += 1
                    }
                    return cycles
                }
            }
            return try await group.reduce(0, +)
        }
        let hostBytes = await table.host.allTexts().reduce(0) { $0 + $1.utf8.count } - hostBytesBefore
        let peak = try box.memoryKiB("VmHWM")

        #expect(slothDropped(), "Sloth was not dropped for its backlog")
        try await table.host.expectSnapshot { $0.players.first { $0.playerId == slothId }?.isConnected == false }
        let (backlog, closed) = try await sloth.drain(timeout: .seconds(3))
        #expect(closed)
        // Sloth's queue (512 messages) was dropped with it; all the box could still hand it was what
        // the kernel already held. The box never held the broadcast for it: its peak memory barely moved.
        #expect(peak - residentBefore < 8 * 1024, "peak resident memory grew by \(peak - residentBefore) KiB")
        print(
            "slow reader: \(cycles) joins and kicks in \(ContinuousClock.now - start), \(hostBytes) bytes "
                + "broadcast; Sloth got \(backlog) bytes before it was dropped; box RSS \(residentBefore) KiB, "
                + "peak \(peak) KiB")
        sloth.close()
        table.closeAll()
    }
}
