import Core

/// The clock probes of a room's PLAYER connections: when each is due, the probes awaiting their
/// echo, and what the echoes tell of each connection's clock and link (CONTRACT 4.1,
/// docs/protocol.md, "The fair brake").
struct ClockProbes {
    /// After WELCOME: this many probes this far apart, then one every `spacingMs`.
    static let firstProbes = 5
    static let firstSpacingMs: Int64 = 150
    static let spacingMs: Int64 = 2_000
    /// The grid the later probes are due on.
    static let gridMs: Int64 = 250
    /// An echo later than this is ignored (and the probe forgotten).
    static let echoLimitMs: Int64 = 2_000
    /// CONNECTION_QUALITY goes to the host this often, the first time this soon (once the first
    /// probes have been echoed, so that a host sees the round trips without waiting).
    static let qualitySpacingMs: Int64 = 5_000
    static let firstQualityMs: Int64 = 1_000

    struct Link {
        let participant: ParticipantID
        var estimate = ClockEstimate()
        /// `BrakeJudge.lookbackMs` of the estimate, kept as it changes: a rush of pulls reads every
        /// link's for each pull (`windowMs`).
        var lookbackMs: Int64 = 0
        var sent = 0
        var nextAt: Int64
        /// Probes sent and not yet echoed: id → when.
        var awaiting: [Int: Int64] = [:]
    }

    private(set) var links: [String: Link] = [:]
    /// Where this room's grid starts within `gridMs`: rooms probe at different moments, not all at once.
    let gridPhaseMs: Int64
    private var lastProbeId = 0
    private var nextQualityAt: Int64?

    init(gridPhaseMs: Int64 = 0) { self.gridPhaseMs = gridPhaseMs }

    /// A PLAYER connection: its first probe is due at `now`.
    mutating func add(_ connectionId: String, participant: ParticipantID, now: Int64) {
        links[connectionId] = Link(participant: participant, nextAt: now)
    }

    mutating func remove(_ connectionId: String) { links[connectionId] = nil }

    /// When the next probe, or the next CONNECTION_QUALITY (`withQuality`), is due; nil when nothing is.
    func nextDue(withQuality: Bool) -> Int64? {
        let probe = links.values.map(\.nextAt).min()
        guard withQuality, !links.isEmpty, let quality = nextQualityAt else { return probe }
        return min(probe ?? quality, quality)
    }

    /// The probes due by `now` (a few milliseconds early, so that probes due together go together),
    /// each recorded as awaiting its echo, and whether it is the connection's first.
    mutating func takeDue(now: Int64) -> [(connectionId: String, probe: ClockProbe, isFirst: Bool)] {
        var due: [(String, ClockProbe, Bool)] = []
        for (id, link) in links where link.nextAt <= now + 5 {
            lastProbeId += 1
            var link = link
            link.awaiting = link.awaiting.filter { now - $0.value <= Self.echoLimitMs }
            link.awaiting[lastProbeId] = now
            link.sent += 1
            // From when it was due, when taken early; from now, when late (no burst to catch up). The
            // probes after the first few fall on a grid of `gridMs`, so that a room's sockets are
            // probed together: a few wakes a second for the room, not one per socket.
            let base = max(link.nextAt, now)
            link.nextAt =
                link.sent < Self.firstProbes
                ? base + Self.firstSpacingMs
                : (base + Self.spacingMs - gridPhaseMs + Self.gridMs - 1) / Self.gridMs * Self.gridMs + gridPhaseMs
            links[id] = link
            due.append((id, ClockProbe(probeId: lastProbeId, serverTimeMs: now), link.sent == 1))
        }
        return due
    }

    /// An echo that arrived at `now`; one with an unknown probe id, or later than `echoLimitMs`, is ignored.
    mutating func echo(_ echo: ClientMessage.ClockEcho, on connectionId: String, now: Int64) {
        guard var link = links[connectionId], let sentAt = link.awaiting.removeValue(forKey: echo.probeId) else {
            return
        }
        if now - sentAt <= Self.echoLimitMs {
            link.estimate.add(.init(sentAt: sentAt, receivedAt: now, clientTimeMs: echo.clientTimeMs))
            link.lookbackMs = BrakeJudge.lookbackMs(link.estimate)
        }
        links[connectionId] = link
    }

    func estimate(of connectionId: String) -> ClockEstimate { links[connectionId]?.estimate ?? ClockEstimate() }

    /// How long a level waits for pulls in flight: the longest lookback of any player's link.
    var windowMs: Int64 { links.values.map(\.lookbackMs).max() ?? 0 }

    /// Each player's link, when CONNECTION_QUALITY is due (every `qualitySpacingMs`); of a player with
    /// several sockets, the one with the most echoes.
    mutating func qualityIfDue(now: Int64) -> ConnectionQuality? {
        guard let due = nextQualityAt else {
            nextQualityAt = now + Self.firstQualityMs
            return nil
        }
        guard due <= now + 5 else { return nil }
        nextQualityAt = now + Self.qualitySpacingMs
        var best: [ParticipantID: Link] = [:]
        for link in links.values
        where link.estimate.samples.count >= (best[link.participant]?.estimate.samples.count ?? 0) {
            best[link.participant] = link
        }
        let players = best.values.sorted { $0.participant < $1.participant }.map { link in
            ConnectionQuality.Link(
                playerId: link.participant, rttMs: link.estimate.medianRoundTripMs,
                jitterMs: link.estimate.samples.isEmpty ? nil : link.estimate.jitterMs,
                clockOk: link.estimate.isUsable)
        }
        return ConnectionQuality(players: players)
    }
}
