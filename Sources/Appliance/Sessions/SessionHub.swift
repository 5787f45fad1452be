import Core
import Foundation
import Logging
import NIOPosix
import ServiceLifecycle

/// All live sessions of the box: creating them with unique join codes, finding them by id or code,
/// restoring them after a restart, ending the ones nobody has used for a while, and deleting ended
/// ones once they are old.
actor SessionHub {
    let environment: RoomEnvironment
    private let idleLimitMs: Int64
    /// How long an ended session stays in the database (its 410s, a late reconnect's
    /// SESSION_ENDED) before it and its log are deleted.
    private let keepEndedMs: Int64
    private var nextPruneAt: Int64 = .min
    private var rooms: [String: SessionRoom] = [:]
    private var roomsByCode: [String: SessionRoom] = [:]
    /// Codes handed to sessions being created, so no other creation takes them meanwhile.
    private var reservedCodes: Set<String> = []
    private var logger: Logger { environment.logger }

    init(environment: RoomEnvironment, idleSessionSeconds: Int, keepEndedDays: Int = 7) {
        self.environment = environment
        idleLimitMs = Int64(idleSessionSeconds) * 1000
        keepEndedMs = Int64(keepEndedDays) * 86_400_000
    }

    /// Rebuilds every live session from its command log and re-arms its timers.
    func restore(now: Int64) async throws {
        let boot = try environment.database.recordBoot(at: now)
        for (session, commands) in try environment.database.liveSessions() {
            let room = SessionRoom(record: session, commands: commands, environment: environment, boot: boot, now: now)
            rooms[session.id] = room
            roomsByCode[session.joinCode] = room
            await room.start()
        }
        if !rooms.isEmpty { logger.info("sessions restored", metadata: ["count": "\(rooms.count)"]) }
        environment.packs.removeRetiring(keeping: await livePackIds())
    }

    var liveCount: Int { rooms.count }

    /// The packs the live sessions play; for a mix, every pack it draws from.
    func livePackIds() async -> Set<String> {
        var ids: Set<String> = []
        for room in rooms.values where await !room.isEnded {
            let packId = await room.packId
            ids.insert(packId)
            if PackLibrary.mixLanguage(packId) != nil {
                ids.formUnion(environment.packs.recordingPacks(of: packId).values)
            }
        }
        return ids
    }

    func room(id: String) -> SessionRoom? { rooms[id] }

    func room(code: String) -> SessionRoom? { roomsByCode[code] }

    struct Created: Sendable {
        var room: SessionRoom
        var record: SessionRecord
        var seat: SessionRoom.Seat
        var tvJoinToken: String
    }

    /// A new session with its creator seated: a host, a TV, or a player who is its captain (`name`,
    /// `device`), whose game plays itself at a living room's pace.
    func create(
        role: Role, settings: Settings, name: String? = nil, device: String? = nil, now: Int64
    ) async throws(BoxError) -> Created {
        var generator = SystemRandomNumberGenerator()
        var code = JoinCode.random(using: &generator)
        // 31^6 codes: a clash is rare, but a live code is never given twice.
        while roomsByCode[code] != nil || reservedCodes.contains(code) { code = JoinCode.random(using: &generator) }
        reservedCodes.insert(code)
        defer { reservedCodes.remove(code) }
        let tvJoinToken = Secrets.token()
        let record = SessionRecord(
            id: Secrets.sessionId(), joinCode: code, joinToken: Secrets.token(),
            tvJoinTokenHash: Secrets.hash(tvJoinToken),
            settings: settings, maxPlayers: environment.limits.maxPlayers, createdAt: now,
            pacing: role == .player ? environment.livingRoomPacing : environment.pacing,
            rules: SessionRecord.currentRules)
        let (room, seat) = try await SessionRoom.create(
            record: record, creator: role, name: name, device: device, environment: environment, now: now)
        rooms[record.id] = room
        roomsByCode[code] = room
        logger.info("session created", metadata: ["session.id": "\(record.id)", "role": "\(role.rawValue)"])
        return Created(room: room, record: record, seat: seat, tvJoinToken: tvJoinToken)
    }

    /// Forgets a session that has ended (it stays in the database, read-only, until `pruneEnded`).
    func forget(_ room: SessionRoom) {
        guard rooms[room.id] === room else { return }
        rooms[room.id] = nil
        if roomsByCode[room.joinCode] === room { roomsByCode[room.joinCode] = nil }
    }

    /// Ends sessions that nobody has been connected to for the idle limit, and forgets ended ones.
    func sweep(now: Int64) async {
        for room in Array(rooms.values) {
            if await room.isEnded {
                forget(room)
                continue
            }
            do {
                guard try await room.endIfIdle(now: now, limitMs: idleLimitMs) else { continue }
                logger.info("idle session ended", metadata: ["session.id": "\(room.id)"])
                forget(room)
            } catch {
                logger.error(
                    "idle session not ended", metadata: ["session.id": "\(room.id)", "error": "\(error.message)"])
            }
        }
        await pruneEnded(now: now)
        // A pack deleted while these sessions played it goes once none plays it.
        environment.packs.removeRetiring(keeping: await livePackIds())
    }

    /// Deletes the sessions that ended longer ago than they are kept, with their participants and
    /// logs: as the box starts serving (`SessionKeeper`) and then once an hour, so a box that runs
    /// for months (a venue's kiosk opens a session every few games) does not fill its disk. A few
    /// sessions per transaction, on NIO's thread pool: the event loops go on, and the journal's
    /// saves wait for at most one.
    func pruneEnded(now: Int64) async {
        guard now >= nextPruneAt else { return }
        nextPruneAt = now + 3_600_000
        let database = environment.database
        let cutoff = now - keepEndedMs
        let batch = 10
        var deleted = 0
        do {
            while true {
                let count = try await NIOThreadPool.singleton.runIfActive {
                    try database.pruneEnded(before: cutoff, limit: batch)
                }
                deleted += count
                if count < batch { break }
            }
        } catch {
            logger.warning("ended sessions not deleted", metadata: ["error": "\(error)"])
        }
        if deleted > 0 { logger.info("ended sessions deleted", metadata: ["count": "\(deleted)"]) }
    }

    /// Shutting down: every client is told the box is going away (close 1001); waits up to two
    /// seconds for the close frames to go out.
    func closeAllConnections() async {
        for room in rooms.values { await room.closeAll(.boxShuttingDown) }
        for _ in 0..<40 {
            var open = false
            for room in rooms.values where await room.hasConnections { open = true }
            if !open { return }
            try? await Task.sleep(for: .milliseconds(50))
        }
    }
}

/// Runs the hub's housekeeping for as long as the box runs; on shutdown it closes every socket first.
struct SessionKeeper: Service {
    let hub: SessionHub
    let sockets: OpenSockets
    var sweepInterval: Duration = .seconds(30)

    func run() async throws {
        try? await cancelWhenGracefulShutdown {
            // Not before the box listens: after an upgrade there can be thousands to delete.
            await hub.pruneEnded(now: ServerClock.now())
            while !Task.isCancelled {
                try await Task.sleep(for: sweepInterval)
                await hub.sweep(now: ServerClock.now())
            }
        }
        // The sockets are closed before the HTTP server stops (this service is shut down first):
        // the rooms' first, each after what is queued for it, then any other.
        await hub.closeAllConnections()
        await sockets.closeAll(limit: .seconds(2))
    }
}
