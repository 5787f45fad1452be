import Core
import Foundation
import Logging
import NIOCore
import NIOPosix
import Synchronization

/// The one owner of a session: every command, from REST, a socket or a timer, runs here one at a time
/// in the order it reaches the room. A command is applied at once and its save handed to the
/// journal; its messages go out through the room's `Outbox` once it, and every command before it,
/// is on disk. The room never waits for the disk itself, so a burst of commands costs one save each
/// in the journal's group commits rather than one save after another. If a save fails, the room goes
/// back to what is on disk (`rollBackIfFailed`): nobody was sent anything of what was lost.
actor SessionRoom {
    nonisolated let id: String
    /// The event loop the room runs on, its actor's executor: one of the box's loops, in turn. A
    /// socket on this loop hands the room each message as it reads it; a socket on another loop
    /// sends its messages over (`RoomInbox`).
    nonisolated let loop: any EventLoop
    nonisolated var unownedExecutor: UnownedSerialExecutor { loop.executor.asUnownedSerialExecutor() }
    nonisolated let joinCode: String
    private let record: SessionRecord
    private let environment: RoomEnvironment
    private let logger: Logger
    private let outbox: Outbox
    private var game: Game
    private var seq: Int
    /// The last save handed to the journal; its messages wait in the outbox until it is on disk.
    private var ticket = 0
    private var connections = RoomConnections()
    private var timer = RoomTimer()
    /// The task that sleeps until `timer`'s armed deadline.
    private var timerTask: Task<Void, Never>?
    /// The room's time, which never goes back (`advance`).
    private var clock: RoomClock
    /// When the last connection went away (or the room was made), for ending idle sessions.
    private(set) var idleSince: Int64?
    /// What waits for the room's next free moment or for the presence window (`sendDue`).
    private var due = DueSends()
    /// Connections coming and going are told to the others at most this often.
    static let presenceWindow: Duration = .milliseconds(100)
    /// Sockets one participant may hold at once (`attach`).
    static let socketsPerSeat = 4
    private var fanOut = SnapshotFanOut()
    /// The save of the command that ended the session (`savedEnd`).
    private var endSave: Save?
    private var sound: RoomSound
    /// The players' clocks and links, for judging pulls by when they were pressed.
    private var probes: ClockProbes
    /// The task that sends the probes and CONNECTION_QUALITY while players are connected.
    private var probeTask: Task<Void, Never>?
    private var probeGeneration = 0

    /// A room for a new session, or one rebuilt by replaying its command log.
    init(record: SessionRecord, commands: [CommandRecord], environment: RoomEnvironment, boot: Int, now: Int64) {
        id = record.id
        joinCode = record.joinCode
        loop = MultiThreadedEventLoopGroup.singleton.next()
        self.record = record
        self.environment = environment
        var logger = environment.logger
        logger[metadataKey: "session.id"] = "\(record.id)"
        self.logger = logger
        outbox = Outbox(logger: logger)
        let clock = RoomClock(boxNow: now, lastCommandAt: commands.last?.at)
        self.clock = clock
        probes = ClockProbes(
            gridPhaseMs: Int64(UInt64(truncatingIfNeeded: record.id.hashValue) % UInt64(ClockProbes.gridMs)))
        sound = RoomSound(
            sessionId: record.id, packs: environment.packs, speaker: environment.speaker, clockOffset: clock.offset)
        let now = clock.now
        var game = Game.replaying(commands, of: record, environment: environment, logger: logger)
        game.resetPresence(now: now)
        game.resumeVersion(boot: boot)
        self.game = game
        // New commands go after everything stored, even what did not replay.
        seq = commands.last?.seq ?? 0
        idleSince = now
    }

    var isEnded: Bool { game.isEnded }

    var packId: String { game.settings.packId }

    /// Arms the timer of a restored game (deadlines that passed while the box was off fire at once).
    func start() { rescheduleTimer() }

    func summary(now: Int64) -> Summary {
        let now = advance(now)
        return Summary(
            hasHost: game.hasHost(at: now), hasTv: game.hasTv, playerCount: game.players.count,
            connectedPlayerCount: game.players.count { game.isConnected($0.id) }, commandCount: seq, phase: game.phase,
            paused: game.pausedSince != nil, isEnded: game.isEnded, joinToken: record.joinToken,
            tvJoinTokenHash: record.tvJoinTokenHash)
    }

    var hasConnections: Bool { !connections.isEmpty }

    var connectionsSnapshot: [Connection] { Array(connections.all) }

    func participantRole(_ id: ParticipantID) -> Role? { game.role(of: id) }

    /// The game that has just ended (the finale, or after it): its number in the session and each
    /// player's points, by device (or by player id for a client without a device cookie).
    func finishedGame() -> (game: Int, players: [(player: String, name: String, points: Int)])? {
        guard game.phase == .finalResults || game.phase == .roundEnd, game.gamesStarted > 0 else { return nil }
        let here = game.players.map { (game.device(of: $0.id) ?? $0.id, $0.name, $0.points) }
        let gone = game.departed.map { ($0.device ?? $0.player.id, $0.player.name, $0.player.points) }
        // One phone, one row: its points of this game added up (left and came back, or two players
        // on one phone), under the name it has now.
        var rows: [(player: String, name: String, points: Int)] = []
        for (player, name, points) in gone + here {
            if let index = rows.firstIndex(where: { $0.player == player }) {
                rows[index].points += points
                rows[index].name = name
            } else {
                rows.append((player, name, points))
            }
        }
        return (game.gamesStarted, rows)
    }

    // MARK: Joining (REST)

    /// A new player, host or TV: a participant with a fresh token, and the command that seats it.
    /// Returns once it is saved: the token must not be handed out before.
    /// `device`: a hash of the phone's device cookie, which a host's kick keeps out of the session.
    func seat(_ role: Role, name: String?, device: String? = nil, now: Int64) async throws(BoxError) -> Seat {
        try await seat(role, name: name, device: device, now: now, newSession: nil)
    }

    /// A new session: the room seats its creator, and the session row is written with that first
    /// command. A player who creates one is its captain (CONTRACT 4.2).
    static func create(
        record: SessionRecord, creator role: Role, name: String? = nil, device: String? = nil,
        environment: RoomEnvironment, now: Int64
    ) async throws(BoxError) -> (room: SessionRoom, seat: Seat) {
        let room = SessionRoom(record: record, commands: [], environment: environment, boot: 0, now: now)
        let seat = try await room.seat(
            role, name: name, device: device, captain: role == .player, now: now, newSession: record)
        return (room, seat)
    }

    private func seat(
        _ role: Role, name: String?, device: String? = nil, captain: Bool = false, now: Int64,
        newSession: SessionRecord?
    ) async throws(BoxError) -> Seat {
        let now = advance(now)
        let new = NewSeat(role, name: name, device: device, captain: captain, sessionId: id, now: now)
        try await run(new.command, by: .box, now: now, newParticipant: new.record, newSession: newSession)?.wait()
        return new.seat
    }

    /// Ends the session (DELETE by the host); returns once that is saved.
    func end(reason: String, by actor: Issuer, now: Int64) async throws(BoxError) {
        let now = advance(now)
        try await run(.end(reason: reason), by: actor, now: now)?.wait()
    }

    // MARK: Connections

    /// Adds a connection, unless the session has ended or its participant is gone meanwhile.
    func attach(_ connection: Connection, now: Int64) -> Bool {
        rollBackIfFailed()
        let now = advance(now)
        guard !game.isEnded, game.role(of: connection.participantId) == connection.role else { return false }
        for oldest in connections.insert(connection, seatHoldsAtMost: Self.socketsPerSeat) {
            fanOut.forget(oldest.id)
            probes.remove(oldest.id)
            outbox.post([.close(oldest, .tooManyConnections)], after: ticket)
        }
        idleSince = nil
        let presenceChanged = !game.setConnected(connection.participantId, true, now: now).isEmpty
        sound.route(game, now: now)
        let projection = view(for: connection, now: now)
        let welcome = Welcome(
            connectionId: connection.id, serverTimeMs: now, timeOffsetHintMs: 0, role: connection.role,
            playerId: connection.participantId, projection: projection)
        let texts = WireEncoder.welcome(welcome, sessionId: id, now: now)
        outbox.post(
            [.text(connection, .whole(texts.welcome)), .text(connection, .whole(texts.snapshot))], after: ticket)
        if presenceChanged { sendPresenceSoon() }
        if connection.role == .player {
            probes.add(connection.id, participant: connection.participantId, now: now + ClockProbes.firstSpacingMs)
            startProbing()
        }
        return true
    }

    /// Why the session ended, once that is on disk: nil if it has not ended, or if its end could
    /// not be saved (the room is then back to before it). Waits for the end's save.
    func savedEnd() async -> String? {
        guard game.isEnded else { return nil }
        try? await endSave?.wait()
        rollBackIfFailed()
        return game.endedReason
    }

    func detach(_ connectionId: String, now: Int64) {
        let now = advance(now)
        guard let connection = connections.remove(connectionId) else { return }
        fanOut.forget(connectionId)
        probes.remove(connectionId)
        if connections.isEmpty { idleSince = now }
        guard connections.of(connection.participantId).isEmpty else { return }
        if !game.setConnected(connection.participantId, false, now: now).isEmpty { sendPresenceSoon() }
        sound.route(game, now: now)
        // A host gone for good gives a captain the controls back (CONTRACT 4.2): when the grace ends,
        // which no command marks, everyone hears that there is no host any more.
        if connection.participantId == game.hostId, game.captainId != nil {
            let graceMs = game.limits.hostGraceMs
            Task {
                try? await Task.sleep(for: .milliseconds(graceMs + 500))
                guard !self.game.hasHost(at: self.advance(ServerClock.now())) else { return }
                self.sendPresenceSoon()
            }
        }
    }

    /// A kiosk's box lets go of the players who have not been connected for `absentForMs`, each
    /// with a command of its own (so that a replay removes them too); returns how many.
    func removeAbsentPlayers(absentForMs: Int64, now: Int64) async -> Int {
        let cutoff = advance(now) - absentForMs
        var removed = 0
        for player in game.absentPlayers(since: cutoff) {
            // Each save is waited for: one that came back meanwhile stays, and each removal is
            // stamped with the room's time then, after what it took meanwhile.
            guard game.absentPlayers(since: cutoff).contains(player) else { continue }
            do {
                try await run(.kick(playerId: player), by: .box, now: advance(ServerClock.now()))?.wait()
                removed += 1
            } catch {
                // Gone meanwhile, or the save failed: the next look tries again.
                logger.warning("absent player kept", metadata: ["player.id": "\(player)", "error": "\(error.message)"])
            }
        }
        return removed
    }

    /// Ends the session if nobody has been connected for `limitMs`; checked and done in one step.
    func endIfIdle(now: Int64, limitMs: Int64) async throws(BoxError) -> Bool {
        let now = advance(now)
        guard !game.isEnded, connections.isEmpty, let idleSince, now - idleSince >= limitMs else { return false }
        try await run(.end(reason: "expired"), by: .box, now: now)?.wait()
        return true
    }

    /// The pack file of a clip that has been played in this game.
    func clipPath(_ clipId: String) -> String? { sound.clipPath(clipId, in: game) }

    /// A message from a connected client.
    func receive(_ message: ClientMessage, from connectionId: String, now: Int64) {
        rollBackIfFailed()
        let now = advance(now)
        guard let connection = connections[connectionId] else { return }
        let sender = Issuer.participant(connection.participantId)
        do throws(BoxError) {
            switch message.handling {
            case .alreadyAuthenticated:
                throw BoxError(status: 400, code: .badMessage, message: "Already authenticated")
            case .resume:
                // Newer than the last generation, perhaps: the next one comes whole.
                fanOut.forget(connectionId)
                send(.stateSnapshot(view(for: connection, now: now)), to: connection, now: now)
            case .ping(let ping):
                // Says nothing of the game, so it need not wait behind the saves: the clock sync stays quick.
                connection.send(encode(.pong(Pong(clientTimeMs: ping.clientTimeMs, serverTimeMs: now)), now: now))
            case .startGame:
                // Checked before the draw, which records what it drew as played.
                guard game.hasControls(connection.participantId, now: now) else {
                    throw BoxError(.forbidden("Only the host may do that"))
                }
                try startGameNow(by: sender, now: now, origin: connection)
            case .brakePull(let pull):
                let timing = BrakeJudge.judge(
                    arrivedAt: now, atClientMs: pull.atClientMs, estimate: probes.estimate(of: connectionId),
                    windowMs: probes.windowMs)
                try run(
                    .brakePull(levelPoints: pull.levelPoints, timing: timing), by: sender, now: now, origin: connection)
            case .clockEcho(let echo):
                probes.echo(echo, on: connectionId, now: now)
            case .setPack(let packId):
                // Who may, before which packs there are: a player learns nothing of the box's packs.
                guard case .participant(let id) = sender, id == game.hostId else {
                    throw BoxError(GameError.forbidden("Only the host may do that"))
                }
                guard let pack = environment.packs.offered(packId) else {
                    throw BoxError(GameError.invalidPayload("No pack \(packId) on this box"))
                }
                try run(
                    .setPack(packId: pack.packId, language: pack.language), by: sender, now: now, origin: connection)
            case .command(var command):
                // A player kicked while their phone is connected is kept out (a troll at a venue); one
                // the host removed while away (a phone asleep) may come back.
                if case .kick(let id, nil) = command { command = .kick(playerId: id, keepOut: game.isConnected(id)) }
                try run(command, by: sender, now: now, origin: connection)
            }
        } catch {
            send(.error(error.payload), to: connection, now: now)
        }
    }

    /// A kiosk's own start: returns once it is saved.
    func startGame(by actor: Issuer, now: Int64) async throws(BoxError) {
        let now = advance(now)
        try await startGameNow(by: actor, now: now)?.wait()
    }

    /// HOST_START_GAME (or a kiosk's own start): the box draws this game's destinations, least
    /// recently played first.
    @discardableResult
    private func startGameNow(by actor: Issuer, now: Int64, origin: Connection? = nil) throws(BoxError) -> Save? {
        guard let pack = environment.packs[game.settings.packId] else {
            throw BoxError(status: 409, code: .invalidPhase, message: "This session's pack is no longer on the box")
        }
        // A mix's destinations are recorded under the packs they come from.
        let recordedUnder = environment.packs.recordingPacks(of: pack.packId)
        let recent = (try? environment.database.recentlyPlayed(packIds: Set(recordedUnder.values))) ?? []
        var generator = SystemRandomNumberGenerator()
        let destinations = DestinationDraw.draw(
            game.settings.destinationsCount, from: pack, recentlyPlayed: recent, using: &generator)
        let played = destinations.map {
            PlayedRecord(packId: recordedUnder[$0.id] ?? pack.packId, destinationId: $0.id, playedAt: now)
        }
        return try run(.start(destinations: destinations), by: actor, now: now, origin: origin, played: played)
    }

    /// A kiosk's own resume of a game its staff paused and left (their seat gone for good).
    func resumeByBox(now: Int64) async throws(BoxError) {
        let now = advance(now)
        try await run(.resume, by: .box, now: now)?.wait()
    }

    /// A kiosk's own restart after the finale: back to the lobby with the same players.
    func restartByBox(now: Int64) async throws(BoxError) {
        let now = advance(now)
        try await run(.restart, by: .box, now: now)?.wait()
    }

    // MARK: Running commands

    /// The room's time for what comes in stamped `now` by the box's clock (`RoomClock`).
    private func advance(_ now: Int64) -> Int64 { clock.advance(now) }

    /// Applies a command now. If it changed the game, its save goes to the journal and its
    /// messages wait in the outbox for it; the returned `Save` is for callers that answer only once
    /// it is on disk (REST). `origin` is the connection that sent it, told if the save fails.
    @discardableResult
    private func run(
        _ command: Command, by actor: Issuer, now: Int64, origin: Connection? = nil,
        newParticipant: ParticipantRecord? = nil, played: [PlayedRecord] = [], newSession: SessionRecord? = nil
    ) throws(BoxError) -> Save? {
        // After a failed save the room goes back first, so that this command is applied to what is
        // on disk and can be saved.
        rollBackIfFailed()
        var next = game
        let effects: [Effect]
        do {
            effects = try next.apply(command, by: actor, now: now)
        } catch {
            throw BoxError(error)
        }
        guard next.revision != game.revision else {
            game = next
            outbox.post(messages(for: effects, now: now), after: ticket)
            return nil
        }
        // A pull waiting for the arbitration window is saved, and shows nobody anything yet.
        let visible = next.version != game.version
        seq += 1
        ticket += 1
        let write = BoxDatabase.Write(
            command: CommandRecord(sessionId: id, seq: seq, at: now, actor: actor, command: command), effects: effects,
            newParticipant: newParticipant, played: played)
        let save = Save()
        if write.endedReason != nil { endSave = save }
        let (outbox, ticket, health) = (self.outbox, self.ticket, environment.health)
        environment.database.journal.submit(write, creating: newSession) { [weak self] result in
            switch result {
            case .success:
                outbox.saved(ticket)
                health.saved()
                save.finish(.success(()))
            case .failure(let error):
                health.saveFailed(error)
                // Recorded before anyone hears of it: the room goes back before it takes any
                // message, command or connection after this, even one that comes before the task below.
                outbox.failed(ticket, reason: "\(error)")
                save.finish(.failure(.storage("\(error)")))
                Task { await self?.rollBackIfFailed() }
            }
        }
        game = next
        sound.route(game, now: now)
        var items = messages(for: effects, now: now)
        if write.endedReason != nil {
            timerTask?.cancel()
            timerTask = nil
            timer.disarm()
        }
        let closing = connections.closes(for: effects).map { Outbox.Item.close($0.connection, $0.why) }
        if !closing.isEmpty {
            // Those who go get the state they leave in first; then they are taken off.
            items += dueItems(now: now, snapshots: true) + closing
            for case .close(let connection, _) in closing {
                connections.remove(connection.id)
                fanOut.forget(connection.id)
                probes.remove(connection.id)
            }
        } else if effects.contains(where: \.acceptsBrake) {
            // A brake's state goes out with its event, in the same write, rather than at the next
            // free moment: every screen shows the brake as it hears of it, and the answers to the
            // pulls that lost do not come in between. (One accepted pull per clue: no burst.)
            items += dueItems(now: now, snapshots: true)
        } else if visible {
            sendSoon()
        }
        outbox.post(items, after: ticket, origin: origin)
        rescheduleTimer()
        return save
    }

    /// If a save failed (a full disk, say), the room goes back to what is on disk. Every later
    /// command of the room fails its save too (the journal keeps a session's log without gaps), so
    /// this runs once per failure: before the room's next message, command or connection, or from
    /// the task the failure starts, whichever comes first. What waited in the outbox is dropped, the
    /// clients whose commands were lost get STORAGE_UNAVAILABLE, and everyone gets a snapshot of the
    /// state on disk.
    private func rollBackIfFailed() {
        guard let failure = outbox.failure else { return }
        let now = advance(ServerClock.now())
        logger.error("command not saved, back to the saved state", metadata: ["error": "\(failure)"])
        do {
            let commands = try environment.database.commands(of: id)
            var saved = Game.replaying(commands, of: record, environment: environment, logger: logger)
            saved.resetPresence(now: now)
            for participant in Set(connections.all.map(\.participantId)) {
                _ = saved.setConnected(participant, true, now: now)
            }
            saved.continueVersion(after: game.version)
            game = saved
            sound.route(game, now: now)
            seq = commands.last?.seq ?? 0
        } catch {
            // Kept as it is; the next save fails its sequence check and brings the room back here.
            logger.error("command log not read back", metadata: ["error": "\(error)"])
        }
        let dropped = outbox.reset(lastTicket: ticket)
        // Some of the snapshots and patches were dropped: nobody's base is known any more.
        fanOut.forgetAll()
        for connection in dropped.closing where connections[connection.id] == nil {
            // Its kick (or the session's end) was lost: it reconnects to the state on disk.
            connection.close(.storageUnavailable)
        }
        var items: [Outbox.Item] = []
        for connection in dropped.origins where connections[connection.id] != nil {
            items.append(.text(connection, .whole(encode(.error(BoxError.storage(failure).payload), now: now))))
        }
        outbox.post(items + snapshots(now: now), after: ticket)
        retryTimerLater(now: now)
    }

    private func fire(_ deadline: Deadline) {
        guard timer.fires(deadline) else { return }
        timerTask = nil
        _ = advance(ServerClock.now())
        let now = clock.reach(deadline.at)
        do {
            try run(.timerFired(timerId: deadline.timerId), by: .box, now: now)
        } catch {
            logger.warning(
                "timer not applied", metadata: ["timer.id": "\(deadline.timerId)", "error": "\(error.message)"])
            retryTimerLater(now: now)
        }
    }

    /// After a failed save or a refused timer: the timer fires again later (`RoomTimer.backOff`).
    private func retryTimerLater(now: Int64) {
        rescheduleTimer(notBefore: timer.backOff(now: now))
    }

    private func rescheduleTimer(notBefore: Int64? = nil) {
        switch timer.plan(next: game.nextDeadline, notBefore: notBefore) {
        case .keep:
            return
        case .cancel:
            timerTask?.cancel()
            timerTask = nil
        case .arm(let deadline, let due):
            timerTask?.cancel()
            let offset = clock.offset
            timerTask = Task { [weak self] in
                let wait = due - (ServerClock.now() + offset)
                if wait > 0 { try? await Task.sleep(for: .milliseconds(wait)) }
                guard !Task.isCancelled else { return }
                await self?.fire(deadline)
            }
        }
    }

    // MARK: Clock probes

    /// (Re)starts the probing task, which sleeps until the next probe it knew of: a new player's
    /// first probe is due sooner.
    private func startProbing() {
        probeTask?.cancel()
        probeGeneration += 1
        let generation = probeGeneration
        probeTask = Task { [weak self] in await self?.probe(generation) }
    }

    /// Sends each player connection its probes, and the host CONNECTION_QUALITY, until no player is
    /// connected. Both go straight to the socket, not behind the saves: a probe's round trip is
    /// the network's, not the disk's.
    private func probe(_ generation: Int) async {
        while !Task.isCancelled {
            let now = advance(ServerClock.now())
            var first: [Outbox.Item] = []
            for (connectionId, probe, isFirst) in probes.takeDue(now: now) {
                guard let connection = connections[connectionId] else {
                    probes.remove(connectionId)
                    continue
                }
                let text = encode(.clockProbe(probe), now: now)
                // The first goes after WELCOME, which may wait behind a save; its round trip then
                // counts that wait too, and the filter passes it over.
                if isFirst { first.append(.text(connection, .whole(text))) } else { connection.send(text) }
            }
            if !first.isEmpty { outbox.post(first, after: ticket) }
            let hosts = connections.recipients(of: .host)
            if !hosts.isEmpty, let quality = probes.qualityIfDue(now: now) {
                let text = encode(.connectionQuality(quality), now: now)
                for host in hosts { host.send(text) }
            }
            guard let next = probes.nextDue(withQuality: !hosts.isEmpty) else { break }
            try? await Task.sleep(for: .milliseconds(max(1, next - now)))
        }
        if generation == probeGeneration { probeTask = nil }
    }

    // MARK: Sending

    /// Snapshots go out at the room's next free moment (`DueSends`). They still come after the
    /// events they follow, and never show an older state.
    private func sendSoon() {
        if due.changed() { Task { self.sendDue() } }
    }

    private func sendDue() {
        due.nextMomentCame()
        outbox.post(dueItems(now: advance(ServerClock.now())), after: ticket)
    }

    /// A connection came or went: the LOBBY_UPDATED and snapshots that tell the others go out
    /// within `presenceWindow` (`DueSends`).
    private func sendPresenceSoon() {
        guard due.presenceChanged() else { return }
        Task {
            try? await Task.sleep(for: Self.presenceWindow)
            if self.due.presenceWindowEnded() { self.sendDue() }
        }
    }

    /// What is due (a LOBBY_UPDATED, snapshots, or with `snapshots` those in any case); after
    /// this nothing is.
    private func dueItems(now: Int64, snapshots forced: Bool = false) -> [Outbox.Item] {
        let taken = due.take()
        var items: [Outbox.Item] = []
        if taken.lobby { items += messages(for: [.send(.lobbyUpdated(game.lobby(at: now)), to: .everyone)], now: now) }
        if taken.snapshots || forced { items += snapshots(now: now) }
        return items
    }

    /// The effects' events as text for their recipients; sounds are started on the box's speaker.
    private func messages(for effects: [Effect], now: Int64) -> [Outbox.Item] {
        var items: [Outbox.Item] = []
        for case .send(let event, let audience) in effects {
            guard let event = sound.prepare(event, in: game) else { continue }
            let recipients = connections.recipients(of: audience)
            guard !recipients.isEmpty else { continue }
            let text = encode(event, now: now)
            for connection in recipients { items.append(.text(connection, .whole(text))) }
        }
        return items
    }

    /// Every connection's state after a change (`SnapshotFanOut`).
    private func snapshots(now: Int64) -> [Outbox.Item] {
        let recipients = Array(connections.all)
        let texts = fanOut.texts(
            for: recipients, sessionId: id, now: now,
            projection: { role, participant in view(for: role, participant: participant, now: now) },
            you: { game.you($0) })
        return zip(recipients, texts).map { .text($0, $1) }
    }

    /// The connection's projection, with the join link at the box's current address.
    private func view(for connection: Connection, now: Int64) -> Projection {
        view(for: connection.role, participant: connection.participantId, now: now)
    }

    private func view(for role: Role, participant: ParticipantID?, now: Int64) -> Projection {
        var projection = game.projection(for: role, participant: participant, now: now)
        projection.joinUrl = environment.address.joinURL(sessionId: id, joinToken: record.joinToken)
        projection.sound?.boxOutput = environment.speaker != nil
        return projection
    }

    /// One message to one connection, after everything the room has sent before it.
    private func send(_ event: ServerEvent, to connection: Connection, now: Int64) {
        outbox.post([.text(connection, .whole(encode(event, now: now)))], after: ticket)
    }

    private func encode(_ event: ServerEvent, now: Int64) -> String {
        WireEncoder.text(message(event, now: now))
    }

    private func message(_ event: ServerEvent, now: Int64) -> ServerMessage {
        ServerMessage(sessionId: id, serverTimeMs: now, event: event)
    }
}

extension SessionRoom {
    /// Closes every connection (box shutdown); the session itself stays live and resumes after a restart.
    func closeAll(_ why: SocketClose) {
        for connection in connectionsSnapshot { connection.close(why) }
    }
}
