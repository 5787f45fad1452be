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
    private var timer: (deadline: Deadline, task: Task<Void, Never>)?
    /// How long to wait before firing a timer again after a save failed or the timer was refused,
    /// and when that last happened (`retryTimerLater`).
    private var timerRetryMs: Int64 = 0
    private var lastFailureAt: Int64 = 0
    /// The room's time, which never goes back (`advance`): the box's clock plus `clockOffset`.
    private var clock: Int64
    /// How far the box's clock was behind the log's last command when the room was rebuilt.
    nonisolated let clockOffset: Int64
    /// When the last connection went away (or the room was made), for ending idle sessions.
    private(set) var idleSince: Int64?
    /// What waits for the room's next free moment (`sendDue`): a LOBBY_UPDATED for presence
    /// changes, and everyone's snapshot.
    private var lobbyDue = false
    private var snapshotsDue = false
    private var sendDueScheduled = false
    /// A presence change's send waits for `presenceWindow` (`sendPresenceSoon`).
    private var presenceSendScheduled = false
    /// Connections coming and going are told to the others at most this often.
    static let presenceWindow: Duration = .milliseconds(100)
    /// Sockets one participant may hold at once (`attach`).
    static let socketsPerSeat = 4
    /// Each round of everyone's snapshots (`snapshots`) is a generation; these are the last one's
    /// projections per role (the players' without `you`). A connection that takes patches and was
    /// sent the last generation gets the next one as a STATE_PATCH from it (`patchBases`); any
    /// other gets a whole STATE_SNAPSHOT.
    private var generation = 0
    private var lastProjections: [Role: Projection] = [:]
    /// For connections that take patches: the generation each was last sent, and its `you` then.
    private var patchBases: [String: (generation: Int, you: Projection.You?)] = [:]
    /// The save of the command that ended the session (`savedEnd`).
    private var endSave: Save?
    /// Clip lengths already read, by file (`clipDuration`).
    private var clipDurations: [String: Int64] = [:]

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
        // A box started with its clock behind the log's last command (a board without a real-time
        // clock, after a power cut) goes on in the log's time, not back in it.
        clockOffset = max(0, (commands.last?.at ?? now) - now)
        let now = now + clockOffset
        var game = Self.replay(commands, of: record, environment: environment, logger: logger)
        game.resetPresence(now: now)
        game.resumeVersion(boot: boot)
        self.game = game
        // New commands go after everything stored, even what did not replay.
        seq = commands.last?.seq ?? 0
        idleSince = now
        clock = now
    }

    private static func replay(
        _ commands: [CommandRecord], of record: SessionRecord, environment: RoomEnvironment, logger: Logger
    ) -> Game {
        var game = Game(
            sessionId: record.id, joinCode: record.joinCode,
            joinUrl: environment.address.joinURL(sessionId: record.id, joinToken: record.joinToken),
            settings: record.settings, limits: record.limits,
            pacing: record.pacing ?? environment.pacing)
        for entry in commands {
            do {
                _ = try game.apply(entry.command, by: entry.actor, now: entry.at)
            } catch {
                // A log that does not replay is a bug; keep what replayed rather than losing the session.
                logger.error("replay stopped", metadata: ["seq": "\(entry.seq)", "error": "\(error)"])
                break
            }
        }
        return game
    }

    var isEnded: Bool { game.isEnded }

    /// Arms the timer of a restored game (deadlines that passed while the box was off fire at once).
    func start() { rescheduleTimer() }

    struct Summary: Sendable {
        var hasHost: Bool
        var hasTv: Bool
        var playerCount: Int
        var connectedPlayerCount: Int
        /// How long its command log is (replayed at every start of the box).
        var commandCount: Int
        var phase: Phase
        var isEnded: Bool
        var joinToken: String
        var tvJoinTokenHash: String
    }

    func summary(now: Int64) -> Summary {
        let now = advance(now)
        return Summary(
            hasHost: game.hasHost(at: now), hasTv: game.hasTv, playerCount: game.players.count,
            connectedPlayerCount: game.players.count { game.isConnected($0.id) }, commandCount: seq, phase: game.phase,
            isEnded: game.isEnded, joinToken: record.joinToken, tvJoinTokenHash: record.tvJoinTokenHash)
    }

    var hasConnections: Bool { !connections.isEmpty }

    var connectionsSnapshot: [Connection] { Array(connections.all) }

    func participantRole(_ id: ParticipantID) -> Role? { game.role(of: id) }

    // MARK: Joining (REST)

    struct Seat: Sendable {
        var participantId: ParticipantID
        var token: String
    }

    /// A new player, host or TV: a participant with a fresh token, and the command that seats it.
    /// Returns once it is saved: the token must not be handed out before.
    func seat(_ role: Role, name: String?, now: Int64) async throws(BoxError) -> Seat {
        try await seat(role, name: name, now: now, newSession: nil)
    }

    /// A new session: the room seats its creator, and the session row is written with that first command.
    static func create(
        record: SessionRecord, creator role: Role, environment: RoomEnvironment, now: Int64
    ) async throws(BoxError) -> (room: SessionRoom, seat: Seat) {
        let room = SessionRoom(record: record, commands: [], environment: environment, boot: 0, now: now)
        let seat = try await room.seat(role, name: nil, now: now, newSession: record)
        return (room, seat)
    }

    private func seat(
        _ role: Role, name: String?, now: Int64, newSession: SessionRecord?
    ) async throws(BoxError) -> Seat {
        let now = advance(now)
        let participantId = Secrets.participantId()
        let token = Secrets.token()
        let command: Command
        switch role {
        case .player: command = .join(playerId: participantId, name: name ?? "")
        case .host: command = .claimHost(participantId)
        case .tv: command = .claimTv(participantId)
        }
        let participant = ParticipantRecord(
            id: participantId, sessionId: id, role: role, tokenHash: Secrets.hash(token), createdAt: now)
        try await run(command, by: .box, now: now, newParticipant: participant, newSession: newSession)?.wait()
        return Seat(participantId: participantId, token: token)
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
        connections.insert(connection)
        // A seat holds a few sockets at most (a phone that reconnected may briefly have two, a
        // second tab another): one more takes the place of the oldest, most likely a dead one.
        // Without a bound one token could open hundreds, each with its own backlog and budget.
        var held = connections.of(connection.participantId)
        while held.count > Self.socketsPerSeat {
            let oldest = held.removeFirst()
            connections.remove(oldest.id)
            patchBases[oldest.id] = nil
            outbox.post([.close(oldest, .tooManyConnections)], after: ticket)
        }
        idleSince = nil
        let presenceChanged = !game.setConnected(connection.participantId, true, now: now).isEmpty
        let projection = view(for: connection, now: now)
        let welcome = Welcome(
            connectionId: connection.id, serverTimeMs: now, timeOffsetHintMs: 0, role: connection.role,
            playerId: connection.participantId, projection: projection)
        let texts = WireEncoder.welcome(welcome, sessionId: id, now: now)
        outbox.post(
            [.text(connection, .whole(texts.welcome)), .text(connection, .whole(texts.snapshot))], after: ticket)
        if presenceChanged { sendPresenceSoon() }
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
        patchBases[connectionId] = nil
        if connections.isEmpty { idleSince = now }
        guard connections.of(connection.participantId).isEmpty else { return }
        if !game.setConnected(connection.participantId, false, now: now).isEmpty { sendPresenceSoon() }
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
    func clipPath(_ clipId: String) -> String? {
        game.packClip(for: clipId).flatMap { environment.packs.clipPath(packId: game.settings.packId, clipId: $0) }
    }

    /// A clip's length for its AUDIO_PLAY, read from its file's header once (the intro plays every
    /// round). Kept by file, since a clip's name (`r1-clue-10`) means another destination's line in
    /// the next game; a file not there yet (voices rendered while the box runs) is looked for again.
    private func clipDuration(_ clipId: String) -> Int64? {
        guard let path = clipPath(clipId) else { return nil }
        if let known = clipDurations[path] { return known }
        let duration = WAVDuration.milliseconds(ofFileAt: path)
        clipDurations[path] = duration
        return duration
    }

    /// A message from a connected client.
    func receive(_ message: ClientMessage, from connectionId: String, now: Int64) {
        rollBackIfFailed()
        let now = advance(now)
        guard let connection = connections[connectionId] else { return }
        let actor = Issuer.participant(connection.participantId)
        let command: Command
        switch message {
        case .hello:
            sendError(
                BoxError(status: 400, code: .badMessage, message: "Already authenticated"), to: connection, now: now)
            return
        case .resumeSession:
            // Newer than the last generation, perhaps: the next one comes whole.
            patchBases[connectionId] = nil
            send(.stateSnapshot(view(for: connection, now: now)), to: connection, now: now)
            return
        case .ping(let ping):
            // Says nothing of the game, so it need not wait behind the saves: the clock sync stays quick.
            connection.send(encode(.pong(Pong(clientTimeMs: ping.clientTimeMs, serverTimeMs: now)), now: now))
            return
        case .hostStartGame:
            guard game.role(of: connection.participantId) == .host else {
                sendError(BoxError(.forbidden("Only the host may do that")), to: connection, now: now)
                return
            }
            do {
                try startGameNow(by: .participant(connection.participantId), now: now, origin: connection)
            } catch {
                sendError(error, to: connection, now: now)
            }
            return
        case .hostNextClue: command = .nextClue
        case .hostNext, .hostSkip: command = .next
        case .hostForceReveal: command = .forceReveal
        case .hostPause: command = .pause
        case .hostResume: command = .resume
        case .hostKick(let kick): command = .kick(playerId: kick.playerId)
        case .hostEndSession: command = .end(reason: "host_ended")
        case .hostRestart: command = .restart
        case .musicGainSet(let gain): command = .setMusicGain(gainDb: gain.gainDb)
        case .brakePull(let pull): command = .brakePull(levelPoints: pull.levelPoints)
        case .brakeAnswerSubmit(let answer): command = .brakeAnswer(answerText: answer.answerText)
        case .followupAnswerSubmit(let answer):
            command = .followupAnswer(index: answer.index, answerText: answer.answerText)
        case .playerLeave: command = .leave
        }
        do {
            try run(command, by: actor, now: now, origin: connection)
        } catch {
            sendError(error, to: connection, now: now)
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
        let recent = (try? environment.database.recentlyPlayed(packId: pack.packId)) ?? []
        var generator = SystemRandomNumberGenerator()
        let destinations = DestinationDraw.draw(
            game.settings.destinationsCount, from: pack, recentlyPlayed: recent, using: &generator)
        let played = destinations.map { PlayedRecord(packId: pack.packId, destinationId: $0.id, playedAt: now) }
        return try run(.start(destinations: destinations), by: actor, now: now, origin: origin, played: played)
    }

    /// A kiosk's own restart after the finale: back to the lobby with the same players.
    func restartByBox(now: Int64) async throws(BoxError) {
        let now = advance(now)
        try await run(.restart, by: .box, now: now)?.wait()
    }

    // MARK: Running commands

    /// The room's time for what comes in stamped `now` by the box's clock: never before anything
    /// it took earlier. A message read on another event loop is stamped there, and can reach the
    /// room after one that the room's own loop read later (`RoomInbox`). It takes the later time, so
    /// the game's time and the `serverTimeMs` of a session's messages only go forward.
    private func advance(_ now: Int64) -> Int64 {
        clock = max(clock, now + clockOffset)
        return clock
    }

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
        guard next.version != game.version else {
            game = next
            outbox.post(messages(for: effects, now: now), after: ticket)
            return nil
        }
        seq += 1
        ticket += 1
        var write = BoxDatabase.Write(
            command: CommandRecord(sessionId: id, seq: seq, at: now, actor: actor, command: command),
            newParticipant: newParticipant, played: played)
        for effect in effects {
            switch effect {
            case .revoke(let participant): write.revoked.append(participant)
            case .ended(let reason): write.endedReason = reason
            case .send: break
            }
        }
        let save = Save()
        if write.endedReason != nil { endSave = save }
        let (outbox, ticket) = (self.outbox, self.ticket)
        environment.database.journal.submit(write, creating: newSession) { [weak self] result in
            switch result {
            case .success:
                outbox.saved(ticket)
                save.finish(.success(()))
            case .failure(let error):
                // Recorded before anyone hears of it: the room goes back before it takes any
                // message, command or connection after this, even one that comes before the task below.
                outbox.failed(ticket, reason: "\(error)")
                save.finish(.failure(.storage("\(error)")))
                Task { await self?.rollBackIfFailed() }
            }
        }
        game = next
        var items = messages(for: effects, now: now)
        let closing = closing(effects)
        if !closing.isEmpty {
            // Those who go get the state they leave in first; then they are taken off.
            items += dueItems(now: now, snapshots: true) + closing
            for case .close(let connection, _) in closing {
                connections.remove(connection.id)
                patchBases[connection.id] = nil
            }
        } else if case .brakePull = command {
            // A brake's state goes out with its event, in the same write, rather than at the next
            // free moment: every screen shows the brake as it hears of it, and the answers to the
            // pulls that lost do not come in between. (One accepted pull per clue: no burst.)
            items += dueItems(now: now, snapshots: true)
        } else {
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
            var saved = Self.replay(commands, of: record, environment: environment, logger: logger)
            saved.resetPresence(now: now)
            for participant in Set(connections.all.map(\.participantId)) {
                _ = saved.setConnected(participant, true, now: now)
            }
            saved.continueVersion(after: game.version)
            game = saved
            seq = commands.last?.seq ?? 0
        } catch {
            // Kept as it is; the next save fails its sequence check and brings the room back here.
            logger.error("command log not read back", metadata: ["error": "\(error)"])
        }
        let dropped = outbox.reset(lastTicket: ticket)
        // Some of the snapshots and patches were dropped: nobody's base is known any more.
        patchBases.removeAll()
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
        guard timer?.deadline == deadline else { return }
        timer = nil
        let now = max(advance(ServerClock.now()), deadline.at)
        clock = now
        do {
            try run(.timerFired(timerId: deadline.timerId), by: .box, now: now)
        } catch {
            logger.warning(
                "timer not applied", metadata: ["timer.id": "\(deadline.timerId)", "error": "\(error.message)"])
            retryTimerLater(now: now)
        }
    }

    /// After a failed save or a refused timer: the timer fires again later rather than at once and
    /// for ever, after 1 s, doubling while failures follow within a minute, up to every 30 s.
    private func retryTimerLater(now: Int64) {
        timerRetryMs = now - lastFailureAt < 60_000 ? min(30_000, max(1_000, timerRetryMs * 2)) : 1_000
        lastFailureAt = now
        rescheduleTimer(notBefore: now + timerRetryMs)
    }

    private func rescheduleTimer(notBefore: Int64? = nil) {
        let next = game.nextDeadline
        guard next != timer?.deadline || notBefore != nil else { return }
        timer?.task.cancel()
        timer = nil
        guard let next else { return }
        let due = max(next.at, notBefore ?? next.at)
        let offset = clockOffset
        let task = Task { [weak self] in
            let wait = due - (ServerClock.now() + offset)
            if wait > 0 { try? await Task.sleep(for: .milliseconds(wait)) }
            guard !Task.isCancelled else { return }
            await self?.fire(next)
        }
        timer = (next, task)
    }

    /// The closes of the connections that revoked participants and an ended session lose, each
    /// connection once (the caller takes them off the room after it has sent them their state).
    private func closing(_ effects: [Effect]) -> [Outbox.Item] {
        var items: [Outbox.Item] = []
        var closed = Set<String>()
        func close(_ connection: Connection, _ why: SocketClose) {
            if closed.insert(connection.id).inserted { items.append(.close(connection, why)) }
        }
        for effect in effects {
            switch effect {
            case .revoke(let participant):
                for connection in connections.of(participant) { close(connection, .revoked) }
            case .ended:
                timer?.task.cancel()
                timer = nil
                for connection in connections.all { close(connection, .sessionEnded) }
            case .send:
                break
            }
        }
        return items
    }

    // MARK: Sending

    /// Snapshots go out at the room's next free moment: after a burst of commands (every player
    /// answering at once) each client gets one for the state after all of them, rather than one per
    /// command, along with a presence change's LOBBY_UPDATED if one is due. They still come after
    /// the events they follow, and never show an older state.
    private func sendSoon() {
        snapshotsDue = true
        guard !sendDueScheduled else { return }
        sendDueScheduled = true
        Task { self.sendDue() }
    }

    private func sendDue() {
        sendDueScheduled = false
        outbox.post(dueItems(now: advance(ServerClock.now())), after: ticket)
    }

    /// A connection came or went: the LOBBY_UPDATED and snapshots that tell the others go out
    /// within `presenceWindow`, with every other presence change of that time. Phones connect in
    /// waves (a venue's room sitting down, everyone coming back after the Wi-Fi dropped), and in a
    /// session of 200 each change is 200 snapshots; sent at the next free moment, a wave of
    /// connections was told to everyone about 80 times over (docs/bench.md, "Seventh round").
    /// A command's own send, if one comes sooner, takes the presence change along.
    private func sendPresenceSoon() {
        lobbyDue = true
        snapshotsDue = true
        guard !presenceSendScheduled else { return }
        presenceSendScheduled = true
        Task {
            try? await Task.sleep(for: Self.presenceWindow)
            self.presenceSendScheduled = false
            if self.lobbyDue || self.snapshotsDue { self.sendDue() }
        }
    }

    /// What is due (a LOBBY_UPDATED, snapshots, or with `snapshots` those in any case); after
    /// this nothing is.
    private func dueItems(now: Int64, snapshots forced: Bool = false) -> [Outbox.Item] {
        var items: [Outbox.Item] = []
        if lobbyDue { items += messages(for: [.send(.lobbyUpdated(game.lobby(at: now)), to: .everyone)], now: now) }
        if snapshotsDue || forced { items += snapshots(now: now) }
        lobbyDue = false
        snapshotsDue = false
        return items
    }

    /// The effects' events as text for their recipients; sounds are started on the box's speaker.
    private func messages(for effects: [Effect], now: Int64) -> [Outbox.Item] {
        var items: [Outbox.Item] = []
        for case .send(var event, let audience) in effects {
            if case .audioPlay(var play) = event {
                play.url = "/v1/sessions/\(id)/assets/\(play.clipId)"
                play.durationMs = clipDuration(play.clipId)
                event = .audioPlay(play)
            }
            if let speaker = environment.speaker, event.isSound {
                let clip: String? = if case .audioPlay(let play) = event { clipPath(play.clipId) } else { nil }
                if case .audioPlay(let play) = event, play.kind == .intro {
                    // A round begins: its clips are read while the intro plays.
                    let packId = game.settings.packId
                    speaker.prepare(
                        game.currentRoundPackClips.compactMap { environment.packs.clipPath(packId: packId, clipId: $0) }
                    )
                }
                speaker.play(event, session: id, packId: game.settings.packId, clip: clip, clockOffset: clockOffset)
            }
            let recipients = connections.recipients(of: audience)
            guard !recipients.isEmpty else { continue }
            let text = encode(event, now: now)
            for connection in recipients { items.append(.text(connection, .whole(text))) }
        }
        return items
    }

    /// Every connection's state after a change: a STATE_SNAPSHOT, or a STATE_PATCH from the last
    /// generation for a connection that takes patches and has it. Host and TV each have one
    /// projection; players share theirs but for `you` (`PlayerSnapshot`), and so their patches.
    private func snapshots(now: Int64) -> [Outbox.Item] {
        generation += 1
        var projections: [Role: Projection] = [:]
        var wholeTexts: [Role: WireText] = [:]
        var patchTexts: [Role: PatchText] = [:]
        var players: PlayerSnapshot?
        var items: [Outbox.Item] = []
        for connection in connections.all {
            let role = connection.role
            let projection: Projection
            if let made = projections[role] {
                projection = made
            } else {
                projection = view(for: role, participant: role == .player ? nil : connection.participantId, now: now)
                projections[role] = projection
            }
            let you = role == .player ? game.you(connection.participantId) : nil
            let text: WireText
            if connection.takesPatches, let base = patchBases[connection.id], base.generation == generation - 1,
                let old = lastProjections[role]
            {
                let patch =
                    patchTexts[role]
                    ?? {
                        let made = patchParts(from: old, to: projection, now: now)
                        patchTexts[role] = made
                        return made
                    }()
                if let change = ProjectionPatch.you(from: base.you, to: you) {
                    text = .spliced(head: patch.head, you: (patch.empty ? "" : ",") + change, tail: patch.tail)
                } else {
                    text = .whole(patch.whole)
                }
            } else if role == .player {
                let snapshot = players ?? PlayerSnapshot(message(.stateSnapshot(projection), now: now))
                players = snapshot
                text = snapshot.text(for: you)
            } else {
                text = wholeTexts[role] ?? .whole(encode(.stateSnapshot(projection), now: now))
                wholeTexts[role] = text
            }
            if connection.takesPatches { patchBases[connection.id] = (generation, you) }
            items.append(.text(connection, text))
        }
        lastProjections = projections
        return items
    }

    /// A STATE_PATCH's text, whole, and around the place of a player's own `you` operation (last).
    private struct PatchText {
        let head: String
        let tail = "]}}"
        /// No operations before `you`'s (so it needs no comma).
        let empty: Bool
        /// Without a `you` operation; made once for all the connections of a role.
        let whole: String

        init(head: String, empty: Bool) {
            self.head = head
            self.empty = empty
            whole = head + tail
        }
    }

    private func patchParts(from old: Projection, to new: Projection, now: Int64) -> PatchText {
        let operations = ProjectionPatch(from: old, to: new).operations
        let head =
            #"{"type":"STATE_PATCH","sessionId":"# + WireEncoder.json(id) + #","serverTimeMs":\#(now)"#
            + #","payload":{"version":\#(new.version),"baseVersion":\#(old.version),"ops":["#
            + operations.joined(separator: ",")
        return PatchText(head: head, empty: operations.isEmpty)
    }

    /// The connection's projection, with the join link at the box's current address.
    private func view(for connection: Connection, now: Int64) -> Projection {
        view(for: connection.role, participant: connection.participantId, now: now)
    }

    private func view(for role: Role, participant: ParticipantID?, now: Int64) -> Projection {
        var projection = game.projection(for: role, participant: participant, now: now)
        projection.joinUrl = environment.address.joinURL(sessionId: id, joinToken: record.joinToken)
        return projection
    }

    /// One message to one connection, after everything the room has sent before it.
    private func send(_ event: ServerEvent, to connection: Connection, now: Int64) {
        outbox.post([.text(connection, .whole(encode(event, now: now)))], after: ticket)
    }

    private func sendError(_ error: BoxError, to connection: Connection, now: Int64) {
        send(.error(error.payload), to: connection, now: now)
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

    /// A command's save, for the callers that answer only once it is on disk.
    final class Save: Sendable {
        private let state = Mutex<
            (result: Result<Void, BoxError>?, waiters: [CheckedContinuation<Result<Void, BoxError>, Never>])
        >((nil, []))

        func finish(_ result: Result<Void, BoxError>) {
            let waiters = state.withLock { state in
                state.result = result
                defer { state.waiters = [] }
                return state.waiters
            }
            for waiter in waiters { waiter.resume(returning: result) }
        }

        /// Returns once the save is done; any number of callers may wait.
        func wait() async throws(BoxError) {
            let result = await withCheckedContinuation { (waiter: CheckedContinuation<Result<Void, BoxError>, Never>) in
                let done = state.withLock { state in
                    if state.result == nil { state.waiters.append(waiter) }
                    return state.result
                }
                if let done { waiter.resume(returning: done) }
            }
            try result.get()
        }
    }
}
