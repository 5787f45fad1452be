import Core
import Testing

@testable import Appliance

/// The probe schedule and the echoes a room keeps, without a room (CONTRACT 4.1).
@Suite("clock probes")
struct ClockProbesTests {
    @Test("five probes 150 ms apart, then one every 2 s on a 250 ms grid; each with its own id")
    func schedule() {
        var probes = ClockProbes()
        probes.add("c1", participant: "p1", now: 1_000)
        var sentAt: [Int64] = []
        var ids: Set<Int> = []
        var now: Int64 = 1_000
        while now < 1_000 + 6_700 {
            for (connection, probe, isFirst) in probes.takeDue(now: now) {
                #expect(connection == "c1" && probe.serverTimeMs == now)
                #expect(isFirst == sentAt.isEmpty)
                sentAt.append(now)
                ids.insert(probe.probeId)
            }
            now += 1
        }
        // Each is taken up to 5 ms early, with whatever else is due then; the schedule does not
        // drift, and after the first five it keeps to the grid (3,750 is the first multiple of 250
        // at least 2 s after 1,600).
        #expect(sentAt == [1_000, 1_145, 1_295, 1_445, 1_595, 3_745, 5_745])
        #expect(ids.count == sentAt.count)
        #expect(probes.nextDue(withQuality: false) == 7_750)
    }

    @Test("a room's grid has its own phase")
    func gridPhase() {
        var probes = ClockProbes(gridPhaseMs: 100)
        probes.add("c1", participant: "p1", now: 0)
        for now in stride(from: Int64(0), through: 600, by: 1) { _ = probes.takeDue(now: now) }
        // After the fifth probe (due at 600), the next at the first 100 + 250k at least 2 s later.
        #expect(probes.nextDue(withQuality: false) == 2_600)
        var other = ClockProbes(gridPhaseMs: 0)
        other.add("c1", participant: "p1", now: 0)
        for now in stride(from: Int64(0), through: 600, by: 1) { _ = other.takeDue(now: now) }
        #expect(other.nextDue(withQuality: false) == 2_750)
    }

    @Test("echoes of unknown probes, of another connection, or later than 2 s are ignored")
    func echoes() {
        var probes = ClockProbes()
        probes.add("c1", participant: "p1", now: 0)
        probes.add("c2", participant: "p2", now: 0)
        let sent = Dictionary(uniqueKeysWithValues: probes.takeDue(now: 0).map { ($0.connectionId, $0.probe) })
        let (first, second) = (sent["c1"]!, sent["c2"]!)
        probes.echo(.init(probeId: 999, clientTimeMs: 5), on: "c1", now: 10)
        probes.echo(.init(probeId: second.probeId, clientTimeMs: 5), on: "c1", now: 10)
        #expect(probes.estimate(of: "c1").samples.isEmpty)
        probes.echo(.init(probeId: second.probeId, clientTimeMs: 5), on: "c2", now: 2_001)
        #expect(probes.estimate(of: "c2").samples.isEmpty, "later than 2 s")
        probes.echo(.init(probeId: first.probeId, clientTimeMs: 505), on: "c1", now: 10)
        #expect(probes.estimate(of: "c1").samples == [.init(sentAt: 0, receivedAt: 10, clientTimeMs: 505)])
        probes.echo(.init(probeId: first.probeId, clientTimeMs: 505), on: "c1", now: 12)
        #expect(probes.estimate(of: "c1").samples.count == 1, "an echo counts once")
    }

    @Test("the window is the longest lookback of any link; quality after 1 s, then every 5 s")
    func windowAndQuality() {
        var probes = ClockProbes()
        probes.add("near", participant: "p1", now: 0)
        probes.add("far", participant: "p2", now: 0)
        #expect(probes.windowMs == 0)
        #expect(probes.qualityIfDue(now: 0) == nil, "the first report waits a second")
        #expect(probes.qualityIfDue(now: 900) == nil)
        var now: Int64 = 0
        for _ in 0..<3 {
            for (connection, probe, _) in probes.takeDue(now: now) {
                let trip: Int64 = connection == "near" ? 10 : 120
                probes.echo(.init(probeId: probe.probeId, clientTimeMs: 0), on: connection, now: now + trip)
            }
            now += 150
        }
        #expect(probes.windowMs == 60 + BrakeJudge.marginMs)
        let quality = probes.qualityIfDue(now: 5_000)
        #expect(
            quality?.players == [
                .init(playerId: "p1", rttMs: 10, jitterMs: 0, clockOk: true),
                .init(playerId: "p2", rttMs: 120, jitterMs: 0, clockOk: true),
            ])
        #expect(probes.qualityIfDue(now: 6_000) == nil)
        probes.remove("far")
        #expect(probes.windowMs == 5 + BrakeJudge.marginMs)
    }
}
