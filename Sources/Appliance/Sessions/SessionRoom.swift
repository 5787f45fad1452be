import Core
import Foundation
import Logging

/// The one owner of a session: every command, from REST, a socket or a timer, runs here one at a time
/// in arrival order. A command is applied to a copy of the game, written to the database, and only
/// then does the room take the new state and send the effects out.
///
/// Saving is awaited (the journal commits many sessions' commands together), so the actor alone
/// does not keep commands apart: every entry that changes the game first takes the room's turn.
actor SessionRoom {
    nonisolated let id: String
    nonisolated let joinCode: String
    private let record: SessionRecord
    private let environment: RoomEnvironment
    private var logger: Logger
    private var game: Game
    private var seq: Int
    private var connections: [String: Connection] = [:]
    private var timer: (deadline: Deadline, task: Task<Void, Never>)?
    /// How long to wait before firing a timer again after it could not be saved.
    private var timerRetryMs: Int64 = 0
    /// Connections that could not take a message; they are detached once the current delivery is done.
    private var lost: Set<String> = []
    /// When the last connection went away (or the room was made), for ending idle sessions.
    private(set) var idleSince: Int64?
    /// Whether someone has the turn, and who waits for it, first come first served.
    private var turnTaken = false
    private var turnQueue: [CheckedContinuation<Void, Never>] = []

    /// A room for a new session, or one rebuilt by replaying its command log.
    init(record: SessionRecord, commands: [CommandRecord], environment: RoomEnvironment, boot: Int, now: Int64) {
        id = record.id
        joinCode = record.joinCode
        self.record = record
        self.environment = environment
        var logger = environment.logger
        logger[metadataKey: "session.id"] = "\(record.id)"
        self.logger = logger
        var game = Game(
            sessionId: record.id, joinCode: record.joinCode,
            joinUrl: environment.address.joinURL(sessionId: record.id, joinToken: record.joinToken),
            settings: record.settings, limits: Limits(maxPlayers: record.maxPlayers), pacing: environment.pacing)
        for entry in commands {
            do {
                _ = try game.apply(entry.command, by: entry.actor, now: entry.at)
            } catch {
                // A log that does not replay is a bug; keep what replayed rather than losing the session.
                logger.error("replay stopped", metadata: ["seq": "\(entry.seq)", "error": "\(error)"])
                break
            }
        }
        game.resetPresence(now: now)
        game.resumeVersion(boot: boot)
        self.game = game
        // New commands go after everything stored, even what did not replay.
        seq = commands.last?.seq ?? 0
        idleSince = now
    }

    var isEnded: Bool { game.isEnded }

    /// Arms the timer of a restored game (deadlines that passed while the box was off fire at once).
    func start() { rescheduleTimer() }

    struct Summary: Sendable {
        var hasHost: Bool
        var hasTv: Bool
        var playerCount: Int
        var phase: Phase
        var isEnded: Bool
        var joinToken: String
        var tvJoinTokenHash: String
    }

    func summary(now: Int64) -> Summary {
        Summary(
            hasHost: game.hasHost(at: now), hasTv: game.hasTv, playerCount: game.players.count, phase: game.phase,
            isEnded: game.isEnded, joinToken: record.joinToken, tvJoinTokenHash: record.tvJoinTokenHash)
    }

    var hasConnections: Bool { !connections.isEmpty }

    var connectionsSnapshot: [Connection] { Array(connections.values) }

    func participantRole(_ id: ParticipantID) -> Role? { game.role(of: id) }

    // MARK: Joining (REST)

    struct Seat: Sendable {
        var participantId: ParticipantID
        var token: String
    }

    /// A new player, host or TV: a participant with a fresh token, and the command that seats it.
    func seat(_ role: Role, name: String?, now: Int64) async throws(BoxError) -> Seat {
        await takeTurn()
        defer { passTurn() }
        return try await seat(role, name: name, now: now, newSession: nil)
    }

    /// A new session: the room seats its creator, and the session row is written with that first command.
    static func create(
        record: SessionRecord, creator role: Role, environment: RoomEnvironment, now: Int64
    ) async throws(BoxError) -> (room: SessionRoom, seat: Seat) {
        let room = SessionRoom(record: record, commands: [], environment: environment, boot: 0, now: now)
        let seat = try await room.seatCreator(role, record: record, now: now)
        return (room, seat)
    }

    private func seatCreator(_ role: Role, record: SessionRecord, now: Int64) async throws(BoxError) -> Seat {
        await takeTurn()
        defer { passTurn() }
        return try await seat(role, name: nil, now: now, newSession: record)
    }

    private func seat(
        _ role: Role, name: String?, now: Int64, newSession: SessionRecord?
    ) async throws(BoxError) -> Seat {
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
        try await run(command, by: .box, now: now, newParticipant: participant, newSession: newSession)
        return Seat(participantId: participantId, token: token)
    }

    /// Ends the session (DELETE by the host).
    func end(reason: String, by actor: Actor, now: Int64) async throws(BoxError) {
        await takeTurn()
        defer { passTurn() }
        try await run(.end(reason: reason), by: actor, now: now)
    }

    // MARK: Connections

    /// Adds a connection, unless the session has ended or its participant is gone meanwhile.
    func attach(_ connection: Connection, now: Int64) async -> Bool {
        await takeTurn()
        defer { passTurn() }
        guard !game.isEnded, game.role(of: connection.participantId) == connection.role else { return false }
        connections[connection.id] = connection
        idleSince = nil
        let effects = game.setConnected(connection.participantId, true, now: now)
        let projection = view(for: connection, now: now)
        let welcome = Welcome(
            connectionId: connection.id, serverTimeMs: now, timeOffsetHintMs: 0, role: connection.role,
            playerId: connection.participantId, projection: projection)
        send(.welcome(welcome), to: connection, now: now)
        send(.stateSnapshot(projection), to: connection, now: now)
        if !effects.isEmpty {
            deliver(effects, now: now)
            broadcastSnapshots(now: now, except: connection.id)
        }
        settleLost(now: now)
        return true
    }

    func detach(_ connectionId: String, now: Int64) async {
        await takeTurn()
        defer { passTurn() }
        detachNow(connectionId, now: now)
    }

    private func detachNow(_ connectionId: String, now: Int64) {
        guard let connection = connections.removeValue(forKey: connectionId) else { return }
        if connections.isEmpty { idleSince = now }
        let stillHere = connections.values.contains { $0.participantId == connection.participantId }
        guard !stillHere else { return }
        let effects = game.setConnected(connection.participantId, false, now: now)
        if !effects.isEmpty {
            deliver(effects, now: now)
            broadcastSnapshots(now: now)
        }
        settleLost(now: now)
    }

    /// Detaches the connections that could not take a message, as if they had closed.
    private func settleLost(now: Int64) {
        while let id = lost.popFirst() { detachNow(id, now: now) }
    }

    /// Ends the session if nobody has been connected for `limitMs`; checked and done in one step.
    func endIfIdle(now: Int64, limitMs: Int64) async throws(BoxError) -> Bool {
        await takeTurn()
        defer { passTurn() }
        guard !game.isEnded, connections.isEmpty, let idleSince, now - idleSince >= limitMs else { return false }
        try await run(.end(reason: "expired"), by: .box, now: now)
        return true
    }

    /// The pack file of a clip that has been played in this game.
    func clipPath(_ clipId: String) -> String? {
        game.packClip(for: clipId).flatMap { environment.packs.clipPath(packId: game.settings.packId, clipId: $0) }
    }

    /// A message from a connected client.
    func receive(_ message: ClientMessage, from connectionId: String, now: Int64) async {
        await takeTurn()
        defer { passTurn() }
        guard let connection = connections[connectionId] else { return }
        let actor = Actor.participant(connection.participantId)
        let command: Command
        switch message {
        case .hello:
            sendError(
                BoxError(status: 400, code: "BAD_MESSAGE", message: "Already authenticated"), to: connection, now: now)
            return
        case .resumeSession:
            send(.stateSnapshot(view(for: connection, now: now)), to: connection, now: now)
            return
        case .ping(let ping):
            send(.pong(Pong(clientTimeMs: ping.clientTimeMs, serverTimeMs: now)), to: connection, now: now)
            return
        case .hostStartGame:
            guard game.role(of: connection.participantId) == .host else {
                sendError(BoxError(.forbidden("Only the host may do that")), to: connection, now: now)
                return
            }
            do {
                try await startGameNow(by: .participant(connection.participantId), now: now)
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
        case .brakePull: command = .brakePull
        case .brakeAnswerSubmit(let answer): command = .brakeAnswer(answerText: answer.answerText)
        case .followupAnswerSubmit(let answer):
            command = .followupAnswer(index: answer.index, answerText: answer.answerText)
        case .playerLeave: command = .leave
        }
        do {
            try await run(command, by: actor, now: now)
        } catch {
            sendError(error, to: connection, now: now)
        }
        settleLost(now: now)
    }

    /// HOST_START_GAME (or a kiosk's own start): the box draws this game's destinations, least
    /// recently played first.
    func startGame(by actor: Actor, now: Int64) async throws(BoxError) {
        await takeTurn()
        defer { passTurn() }
        try await startGameNow(by: actor, now: now)
    }

    private func startGameNow(by actor: Actor, now: Int64) async throws(BoxError) {
        guard let pack = environment.packs[game.settings.packId] else {
            throw BoxError(status: 409, code: "INVALID_PHASE", message: "This session's pack is no longer on the box")
        }
        let recent = (try? environment.database.recentlyPlayed(packId: pack.packId)) ?? []
        var generator = SystemRandomNumberGenerator()
        let destinations = DestinationDraw.draw(
            game.settings.destinationsCount, from: pack, recentlyPlayed: recent, using: &generator)
        let played = destinations.map { PlayedRecord(packId: pack.packId, destinationId: $0.id, playedAt: now) }
        try await run(.start(destinations: destinations), by: actor, now: now, played: played)
    }

    /// A kiosk's own restart after the finale: back to the lobby with the same players.
    func restartByBox(now: Int64) async throws(BoxError) {
        await takeTurn()
        defer { passTurn() }
        try await run(.restart, by: .box, now: now)
    }

    // MARK: Taking turns

    /// Waits until no other command is between its start and its end in this room.
    private func takeTurn() async {
        if turnTaken {
            await withCheckedContinuation { turnQueue.append($0) }
        }
        turnTaken = true
    }

    /// Hands the turn to the next in line, who then holds it from here.
    private func passTurn() {
        if turnQueue.isEmpty {
            turnTaken = false
        } else {
            turnQueue.removeFirst().resume()
        }
    }

    // MARK: Running commands

    private func run(
        _ command: Command, by actor: Actor, now: Int64, newParticipant: ParticipantRecord? = nil,
        played: [PlayedRecord] = [], newSession: SessionRecord? = nil
    ) async throws(BoxError) {
        var next = game
        let effects: [Effect]
        do {
            effects = try next.apply(command, by: actor, now: now)
        } catch {
            throw BoxError(error)
        }
        if next.version != game.version {
            var write = BoxDatabase.Write(
                command: CommandRecord(sessionId: id, seq: seq + 1, at: now, actor: actor, command: command),
                newParticipant: newParticipant, played: played)
            for effect in effects {
                switch effect {
                case .revoke(let participant): write.revoked.append(participant)
                case .ended(let reason): write.endedReason = reason
                case .send: break
                }
            }
            do {
                try await environment.database.journal.save(write, creating: newSession)
            } catch {
                logger.error("command not saved", metadata: ["error": "\(error)"])
                throw .storage("\(error)")
            }
            seq += 1
            game = next
            deliver(effects, now: now)
            broadcastSnapshots(now: now)
            finish(effects)
            rescheduleTimer()
        } else {
            game = next
            deliver(effects, now: now)
        }
        settleLost(now: now)
    }

    private func fire(_ deadline: Deadline) async {
        await takeTurn()
        defer { passTurn() }
        guard timer?.deadline == deadline else { return }
        timer = nil
        let now = max(ServerClock.now(), deadline.at)
        do {
            try await run(.timerFired(timerId: deadline.timerId), by: .box, now: now)
            timerRetryMs = 0
        } catch {
            logger.warning(
                "timer not applied", metadata: ["timer.id": "\(deadline.timerId)", "error": "\(error.message)"])
            // Not saved (say the disk is full): try again later, backing off to once every 30 s.
            timerRetryMs = min(30_000, max(1_000, timerRetryMs * 2))
            rescheduleTimer(notBefore: now + timerRetryMs)
        }
        settleLost(now: now)
    }

    private func rescheduleTimer(notBefore: Int64? = nil) {
        let next = game.nextDeadline
        guard next != timer?.deadline || notBefore != nil else { return }
        timer?.task.cancel()
        timer = nil
        guard let next else { return }
        let due = max(next.at, notBefore ?? next.at)
        let task = Task { [weak self] in
            let wait = due - ServerClock.now()
            if wait > 0 { try? await Task.sleep(for: .milliseconds(wait)) }
            guard !Task.isCancelled else { return }
            await self?.fire(next)
        }
        timer = (next, task)
    }

    /// After the events went out: revoked participants and ended sessions lose their connections.
    private func finish(_ effects: [Effect]) {
        for effect in effects {
            switch effect {
            case .revoke(let participant):
                for connection in connections.values where connection.participantId == participant {
                    connection.close(code: 4003, reason: "REVOKED")
                    connections[connection.id] = nil
                }
            case .ended:
                timer?.task.cancel()
                timer = nil
                for connection in connections.values { connection.close(code: 1000, reason: "SESSION_ENDED") }
                connections.removeAll()
            case .send:
                break
            }
        }
    }

    // MARK: Sending

    private func deliver(_ effects: [Effect], now: Int64) {
        for case .send(var event, let audience) in effects {
            if case .audioPlay(var play) = event {
                play.url = "/v1/sessions/\(id)/assets/\(play.clipId)"
                play.durationMs = clipPath(play.clipId).flatMap(WAVDuration.milliseconds(ofFileAt:))
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
                speaker.play(event, session: id, packId: game.settings.packId, clip: clip)
            }
            let recipients = connections.values.filter {
                audience.includes(role: $0.role, participant: $0.participantId)
            }
            guard !recipients.isEmpty else { continue }
            let text = encode(event, now: now)
            for connection in recipients { push(text, to: connection) }
        }
    }

    /// Host and TV each have one projection; players share theirs but for `you` (`PlayerSnapshot`).
    private func broadcastSnapshots(now: Int64, except skipped: String? = nil) {
        var shared: [Role: String] = [:]
        var players: PlayerSnapshot?
        for connection in connections.values where connection.id != skipped {
            let text: String
            switch connection.role {
            case .host, .tv:
                if let cached = shared[connection.role] {
                    text = cached
                } else {
                    text = encode(.stateSnapshot(view(for: connection, now: now)), now: now)
                    shared[connection.role] = text
                }
            case .player:
                let snapshot =
                    players
                    ?? PlayerSnapshot(
                        ServerMessage(
                            sessionId: id, serverTimeMs: now,
                            event: .stateSnapshot(view(for: .player, participant: nil, now: now))))
                players = snapshot
                text = snapshot.text(for: game.you(connection.participantId))
            }
            push(text, to: connection)
        }
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

    func send(_ event: ServerEvent, to connection: Connection, now: Int64) {
        push(encode(event, now: now), to: connection)
    }

    func sendError(_ error: BoxError, to connection: Connection, now: Int64) {
        send(.error(error.payload), to: connection, now: now)
    }

    private func push(_ text: String, to connection: Connection) {
        let delivery = connection.send(text)
        if delivery != .queued, connections[connection.id] != nil {
            if delivery == .overflowed {
                logger.warning(
                    "connection dropped: not reading",
                    metadata: ["connection.id": "\(connection.id)", "participant.id": "\(connection.participantId)"])
            }
            lost.insert(connection.id)
        }
    }

    private func encode(_ event: ServerEvent, now: Int64) -> String {
        WireEncoder.text(ServerMessage(sessionId: id, serverTimeMs: now, event: event))
    }
}

extension SessionRoom {
    /// Closes every connection (box shutdown); the session itself stays live and resumes after a restart.
    func closeAll(code: UInt16, reason: String) {
        for connection in connectionsSnapshot { connection.close(code: code, reason: reason) }
    }
}
