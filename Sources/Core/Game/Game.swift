/// One session's game: a value-type state machine over the contract's phases.
///
/// `apply(_:by:now:)` either refuses a command with a `GameError` and leaves the game exactly as it was,
/// or changes it and returns the effects for the box to carry out. Core never reads a clock or draws a
/// random number; `now`, the destinations and presence come in from the box, so a game replays
/// identically from its command log.
public struct Game: Codable, Sendable, Equatable {
    public let sessionId: String
    public var joinCode: String
    public var joinUrl: String
    public internal(set) var settings: Settings
    public let limits: Limits
    public let pacing: Pacing

    /// Grows with every change a client can see.
    public internal(set) var version = 0
    /// Grows with every change, seen or not (a pull waiting for the arbitration window): what the
    /// box saves.
    public internal(set) var revision = 0
    public internal(set) var phase: Phase = .lobby
    public internal(set) var pausedSince: ServerTime?
    public internal(set) var players: [Player] = []
    public internal(set) var hostId: ParticipantID?
    public internal(set) var tvId: ParticipantID?
    public internal(set) var presence: [ParticipantID: Presence] = [:]
    public internal(set) var plan: [Destination] = []
    public internal(set) var round: RoundState?
    public internal(set) var timers: [GameTimer] = []
    public internal(set) var brake: BrakeState?
    /// Pulls of the current clue waiting for the arbitration window (docs/protocol.md, "The fair brake").
    public internal(set) var arbitration: Arbitration?
    public internal(set) var musicGainDb: Double = Game.defaultMusicGainDb
    public internal(set) var musicTrack: String?
    /// When the bed under way starts, or started: the finale's comes in after the fanfare.
    public internal(set) var musicStartsAt: ServerTime?
    /// Which of the room's sound sources play this session (SOUND_OUTPUT_SET).
    public internal(set) var soundOutputs = SoundOutputs()
    public internal(set) var finalResults: FinalResults?
    public internal(set) var endedReason: String?
    var lastBrakePull: [ParticipantID: ServerTime] = [:]
    /// The device (a hash of its cookie) each player joined from, where it said; never sent to anyone.
    var devices: [ParticipantID: String] = [:]
    /// Devices whose player the host kicked: they join this session no more, under any name.
    var kickedDevices: Set<String> = []
    /// The player who created a game without a host: the controls are theirs while no host holds
    /// them; if they go, the longest-seated player takes over (CONTRACT 4.2).
    public internal(set) var captainId: ParticipantID?
    /// Whether this game was created without a host (a captain's), so that it always has a captain.
    var hostless = false
    /// Who left during this game, with their points and device (emptied when a game starts).
    public internal(set) var departed: [Departed] = []

    public struct Departed: Codable, Sendable, Equatable {
        public var player: Player
        public var device: String?
    }

    /// How many games this session has started: a kiosk session plays one after another.
    public internal(set) var gamesStarted = 0

    /// The device a player joined from (a hash of its cookie), for the box's own records.
    public func device(of id: ParticipantID) -> String? { devices[id] }
    var timerCount = 0

    public static let defaultMusicGainDb = -8.0
    /// When the finale's music bed starts, after the fanfare has had its moment.
    public static let finaleBedDelayMs: ServerTime = 5_500
    public static let musicGainRange = -60.0...0.0
    public static let followupPoints = 2

    public init(
        sessionId: String, joinCode: String, joinUrl: String, settings: Settings, limits: Limits = Limits(),
        pacing: Pacing = Pacing()
    ) {
        self.sessionId = sessionId
        self.joinCode = joinCode
        self.joinUrl = joinUrl
        self.settings = settings
        self.limits = limits
        self.pacing = pacing
    }

    public var isEnded: Bool { endedReason != nil }

    /// Applies one command. On error nothing changes. The box logs the command when `version` grew.
    public mutating func apply(_ command: Command, by actor: Issuer, now: ServerTime) throws(GameError) -> [Effect] {
        guard endedReason == nil else { throw .sessionEnded }
        var next = self
        var out = EffectList()
        if next.arbitration != nil, command.settlesArbitration { next.decideBrake(now: now, into: &out) }
        try next.handle(command, by: actor, now: now, into: &out)
        if out.changesGame { next.version += 1 }
        if out.changesGame || out.changesHidden { next.revision += 1 }
        self = next
        return out.effects
    }

    private mutating func handle(
        _ command: Command, by actor: Issuer, now: ServerTime, into out: inout EffectList
    ) throws(GameError) {
        switch command {
        case .join(let playerId, let name, let device, let captain):
            try requireBox(actor, "join")
            try join(playerId, name: name, device: device, now: now, into: &out)
            // A game without a host keeps a captain: the first to join after everyone went is one.
            if captain == true || (hostless && captainId == nil) {
                hostless = true
                captainId = playerId
            }
        case .claimHost(let id):
            try requireBox(actor, "claim the host role")
            try claimHost(id, now: now, into: &out)
        case .claimTv(let id):
            try requireBox(actor, "claim the TV role")
            try claimTv(id, now: now, into: &out)
        case .start(let destinations):
            try requireController(actor, now: now)
            try start(destinations, now: now, into: &out)
        case .nextClue:
            try requireHost(actor)
            try requireNotPaused()
            try nextClue(now: now, into: &out)
        case .next:
            try requireHost(actor)
            try requireNotPaused()
            try next(now: now, into: &out)
        case .forceReveal:
            try requireHost(actor)
            try requireNotPaused()
            guard phase.isCluePhase else { throw .invalidPhase("Nothing to reveal in \(phase.rawValue)") }
            leavePhase()
            reveal(now: now, into: &out)
        case .pause:
            try requireController(actor, now: now, box: false)
            try pause(now: now, into: &out)
        case .resume:
            // A kiosk's box too: its staff may pause and walk away.
            try requireController(actor, now: now)
            try resume(now: now, into: &out)
        case .kick(let playerId, let keepOut):
            // A kiosk's box lets go of players who walked away (`absentPlayers`): they left.
            try requireHostOrKiosk(actor)
            guard players.contains(where: { $0.id == playerId }) else {
                throw .invalidPayload("No player \(playerId) in this session")
            }
            // A phone the host sent away does not come back under another name.
            if actor != .box, keepOut == true, let device = devices[playerId] { kickedDevices.insert(device) }
            removePlayer(playerId, reason: actor == .box ? .left : .kicked, now: now, into: &out)
        case .restart:
            try requireController(actor, now: now)
            try restart(now: now, into: &out)
        case .endGame:
            try requireHost(actor)
            guard phase != .lobby, phase != .finalResults, phase != .roundEnd else {
                throw .invalidPhase("No game under way to end")
            }
            pausedSince = nil
            brake = nil
            showFinale(now: now, into: &out)
        case .setPack(let packId, let language):
            try requireHost(actor)
            guard phase == .lobby else { throw .invalidPhase("The pack is chosen in the lobby, between games") }
            settings.packId = packId
            settings.language = language
            out.everyone(.lobbyUpdated(lobby(at: now)))
        case .setMusicGain(let gainDb):
            try requireHost(actor)
            guard Self.musicGainRange.contains(gainDb) else {
                throw .invalidPayload(
                    "gainDb must be between \(Self.musicGainRange.lowerBound) and \(Self.musicGainRange.upperBound)")
            }
            musicGainDb = gainDb
            out.room(.musicGainSet(MusicGain(gainDb: gainDb)))
        case .setSoundOutput(let tvPage, let boxMuted):
            try setSoundOutput(tvPage: tvPage, boxMuted: boxMuted, by: actor, now: now, into: &out)
        case .end(let reason):
            if actor != .box { try requireController(actor, now: now, box: false) }
            end(reason: reason, into: &out)
        case .brakePull(let levelPoints, let timing):
            let player = try requirePlayer(actor)
            brakePull(by: player, on: levelPoints, timing: timing, now: now, into: &out)
        case .brakeAnswer(let text):
            let player = try requirePlayer(actor)
            try brakeAnswer(text, by: player, now: now, into: &out)
        case .followupAnswer(let index, let text):
            let player = try requirePlayer(actor)
            try followupAnswer(index: index, text: text, by: player)
        case .leave:
            let player = try requirePlayer(actor)
            // Left during a game: the points stay on its scoreboard.
            if phase != .lobby, let left = players.first(where: { $0.id == player }) {
                departed.append(Departed(player: left, device: devices[player]))
            }
            removePlayer(player, reason: .left, now: now, into: &out)
        case .timerFired(let timerId):
            try requireBox(actor, "fire timers")
            try timerFired(timerId, now: now, into: &out)
        }
    }

    // MARK: Who may do what

    public func role(of participant: ParticipantID) -> Role? {
        if participant == hostId { return .host }
        if participant == tvId { return .tv }
        if players.contains(where: { $0.id == participant }) { return .player }
        return nil
    }

    private func requireBox(_ actor: Issuer, _ what: String) throws(GameError) {
        guard actor == .box else { throw .forbidden("Only the box may \(what)") }
    }

    private func requireHost(_ actor: Issuer) throws(GameError) {
        guard case .participant(let id) = actor, id == hostId else { throw .forbidden("Only the host may do that") }
    }

    /// With `autoAdvance` (a kiosk) the box itself starts and restarts games where a host would.
    private func requireHostOrKiosk(_ actor: Issuer) throws(GameError) {
        if actor == .box, settings.autoAdvance { return }
        try requireHost(actor)
    }

    /// The host; the captain while there is no host (CONTRACT 4.2); and where `box`, a kiosk's box.
    private func requireController(_ actor: Issuer, now: ServerTime, box: Bool = true) throws(GameError) {
        if case .participant(let id) = actor, id == captainId, !hasHost(at: now) { return }
        if box { try requireHostOrKiosk(actor) } else { try requireHost(actor) }
    }

    /// Whether `id` may start, pause, resume, restart and end the game: the host, or the captain
    /// while there is no host.
    public func hasControls(_ id: ParticipantID, now: ServerTime) -> Bool {
        id == hostId || (id == captainId && !hasHost(at: now))
    }

    /// The TV says whether its page plays the sound; the TV, the host or the captain mute the box.
    private mutating func setSoundOutput(
        tvPage: Bool?, boxMuted: Bool?, by actor: Issuer, now: ServerTime, into out: inout EffectList
    ) throws(GameError) {
        guard case .participant(let id) = actor else { throw .forbidden("Only a participant may do that") }
        let isTv = id == tvId
        if tvPage != nil, !isTv { throw .forbidden("Only the TV says whether its page plays the sound") }
        if boxMuted != nil, !isTv, !hasControls(id, now: now) {
            throw .forbidden("Only the TV, the host or the captain may mute the box")
        }
        guard tvPage != nil || boxMuted != nil else { throw .invalidPayload("Say tvPage, boxMuted or both") }
        let next = SoundOutputs(tvPage: tvPage ?? soundOutputs.tvPage, boxMuted: boxMuted ?? soundOutputs.boxMuted)
        guard next != soundOutputs else {
            out.changesGame = false
            return
        }
        soundOutputs = next
    }

    private func requirePlayer(_ actor: Issuer) throws(GameError) -> ParticipantID {
        guard case .participant(let id) = actor, role(of: id) == .player else {
            throw .forbidden("Only players may do that")
        }
        return id
    }

    private func requireNotPaused() throws(GameError) {
        guard pausedSince == nil else { throw .invalidPhase("The game is paused; resume it first") }
    }

    // MARK: Queries for the box

    /// The timer that fires next, or nil when none runs (no timer, or all held).
    public var nextDeadline: Deadline? {
        let decision = arbitration.map { Deadline(timerId: Arbitration.timerId, at: $0.decideAt) }
        return (timers.compactMap { timer in timer.deadline.map { Deadline(timerId: timer.id, at: $0) } } + [decision])
            .compactMap { $0 }.min { $0.at < $1.at }
    }

    /// Whether a host holds the role at `now`: connected, or gone for no longer than the grace period.
    public func hasHost(at now: ServerTime) -> Bool {
        guard let hostId else { return false }
        switch presence[hostId] {
        case .connected: return true
        case .disconnected(let since): return now - since <= limits.hostGraceMs
        case nil: return false
        }
    }

    /// Whether a TV is connected (a TV that is not connected is replaced by the next one that joins).
    public var hasTv: Bool {
        guard let tvId else { return false }
        return presence[tvId] == .connected
    }

    public func isConnected(_ id: ParticipantID) -> Bool { presence[id] == .connected }

    /// Whether the box's own output is silent for this session: muted (SOUND_OUTPUT_SET) while a
    /// connected TV page plays the sound. A TV page switched off, closed or cut off gives the sound
    /// back to the box at once, so a room is never left silent.
    public var boxSilenced: Bool { soundOutputs.boxMuted && soundOutputs.tvPage && hasTv }

    /// The players not connected since `cutoff` or before, in join order.
    public func absentPlayers(since cutoff: ServerTime) -> [ParticipantID] {
        players.compactMap { player in
            guard case .disconnected(let since) = presence[player.id], since <= cutoff else { return nil }
            return player.id
        }
    }

    /// Players by points, most first; equal points keep join order.
    /// The players by points, and after those still here with as many points, who left during
    /// this game, marked `left`.
    public var standings: [Standing] {
        let everyone =
            players.map { Standing(playerId: $0.id, name: $0.name, points: $0.points) }
            + departed.map {
                Standing(playerId: $0.player.id, name: $0.player.name, points: $0.player.points, left: true)
            }
        return everyone.enumerated()
            .sorted { lhs, rhs in
                lhs.element.points != rhs.element.points
                    ? lhs.element.points > rhs.element.points : lhs.offset < rhs.offset
            }
            .map(\.element)
    }
}

/// The effects of one command, collected in order.
struct EffectList {
    private(set) var effects: [Effect] = []
    /// False when the command changed nothing a client can see (a refused brake pull): the box does
    /// not log it, unless `changesHidden`.
    var changesGame = true
    /// The command changed what no client sees yet (a pull waiting for the arbitration window): the
    /// box logs it, and sends nothing.
    var changesHidden = false

    mutating func send(_ event: ServerEvent, to audience: Audience) { effects.append(.send(event, to: audience)) }
    mutating func everyone(_ event: ServerEvent) { send(event, to: .everyone) }
    mutating func room(_ event: ServerEvent) { send(event, to: .room) }
    mutating func append(_ effect: Effect) { effects.append(effect) }
}
