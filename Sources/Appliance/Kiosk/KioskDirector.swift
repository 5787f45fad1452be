import Core
import Foundation
import Logging
import ServiceLifecycle

/// What `--kiosk` needs to run a venue with nobody at the controls.
struct KioskOptions: Sendable {
    /// The settings of every kiosk session (autoAdvance is always on).
    var settings = SettingsRequest(destinationsCount: 3)
    /// How long the lobby waits once a player is connected, before the game starts (counted again
    /// whenever nobody is).
    var lobbySeconds = 30
    /// How long the final standings stay up after the finale before the lobby opens again.
    var endSeconds = 20
    /// How long a player may be away, in the lobby or at the end of a game, before the box lets go
    /// of their seat (a phone that slept for a while is back long before). A game under way plays
    /// on with no player connected for three times as long before the kiosk gives it up: phones
    /// lock while their players watch the screen (over plain http a page cannot keep one awake).
    var awaySeconds = 60

    var emptyGameMs: Int64 { Int64(awaySeconds) * 3 * 1000 }
    /// An empty lobby whose session's log is this long starts over in a fresh session (about a
    /// few games): the log, replayed at every start of the box, stays the length of one group's
    /// evening rather than a month's.
    var renewAfterCommands = 300
    /// Tonight's leaderboard: when the venue's day starts (`--kiosk-day-starts`).
    var tonight = Tonight()
    /// With `--staff-pin`: a phone or console that joins the kiosk's session as HOST with this PIN
    /// gets the host's controls (CONTRACT 4.4); without it nobody may host.
    var staffPin: String?

    /// The settings of a kiosk session: `settings`, with autoAdvance on. Checked at the start of the
    /// box, so that settings it cannot use are said then, not met by the first guest.
    /// Without a pack named, a kiosk plays the mix of its language's packs where there is one: its
    /// regulars meet every destination of every pack before one comes back, which no turn of whole
    /// packs gives them.
    func sessionSettings(in environment: RoomEnvironment) throws(BoxError) -> Settings {
        var request = settings
        request.autoAdvance = true
        if request.packId == nil, let language = environment.packs.defaultPack(for: request.language)?.language,
            environment.packs.offered(PackLibrary.mixId(language)) != nil
        {
            request.packId = PackLibrary.mixId(language)
        }
        return try environment.settings(from: request)
    }
}

/// The kiosk's seat: the session the box holds as its own TV, and the TV's token, so the box's own
/// screen (`/tv?kiosk`) can show it. Kept in the data directory (readable by the box's user only).
struct KioskSeat: Codable, Sendable {
    var sessionId: String
    var joinCode: String
    var tvAuthToken: String
}

/// Runs the attract loop: there is always an open kiosk session; a game starts a little while after
/// a player is connected, autoAdvance plays it as a host would, and after the finale the lobby
/// opens again with the same players. Players who walked away (not connected for `awaySeconds`)
/// are let go in the lobby and before it opens again, so that the guests of an evening do not fill
/// the session. A game that everyone walked away from is ended after `emptyGameMs`, so that the
/// screen shows a new game's QR code instead of playing on to nobody. A session that ended (idle,
/// abandoned, or ended from outside) is replaced by a fresh one.
actor KioskDirector: Service {
    private let hub: SessionHub
    private let environment: RoomEnvironment
    private let options: KioskOptions
    private let file: String
    private let logger: Logger
    private(set) var seat: KioskSeat?
    private var lobbyReadySince: Int64?
    /// The last game whose results went to tonight's leaderboard (session id, game number).
    private var recorded: (sessionId: String, game: Int)?
    private var endedSince: Int64?
    /// Since when the game under way has had no player connected.
    private var emptySince: Int64?
    /// The step under way: the loop's and a screen's `currentSeat` take turns, so that two of them
    /// never open two sessions (each waits for the other's `await`s otherwise).
    private var stepping: Task<Void, Never>?

    init(hub: SessionHub, environment: RoomEnvironment, options: KioskOptions, dataDirectory: String) {
        self.hub = hub
        self.environment = environment
        self.options = options
        self.file = (dataDirectory as NSString).appendingPathComponent("kiosk.json")
        var logger = environment.logger
        logger[metadataKey: "kiosk"] = "on"
        self.logger = logger
        seat = (FileManager.default.contents(atPath: file)).flatMap {
            try? JSONDecoder().decode(KioskSeat.self, from: $0)
        }
    }

    func run() async throws {
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                await self.step(now: ServerClock.now())
                try await Task.sleep(for: .milliseconds(250))
            }
        }
    }

    /// The current kiosk session, opening one if there is none.
    func currentSeat() async -> KioskSeat? {
        await step(now: ServerClock.now())
        return seat
    }

    private func step(now: Int64) async {
        if let stepping {
            await stepping.value
            return
        }
        let task = Task { await self.stepNow(now: now) }
        stepping = task
        await task.value
        stepping = nil
    }

    private func stepNow(now: Int64) async {
        guard let seat, let room = await hub.room(id: seat.sessionId), await !room.isEnded else {
            await open(now: now)
            return
        }
        var summary = await room.summary(now: now)
        if summary.phase == .lobby || summary.connectedPlayerCount > 0 { emptySince = nil }
        switch summary.phase {
        case .lobby:
            endedSince = nil
            if summary.connectedPlayerCount < summary.playerCount {
                if await room.removeAbsentPlayers(absentForMs: Int64(options.awaySeconds) * 1000, now: now) > 0 {
                    summary = await room.summary(now: now)
                }
            }
            if summary.playerCount == 0, summary.commandCount >= options.renewAfterCommands {
                do {
                    try await room.end(reason: "expired", by: .box, now: now)
                    logger.info("kiosk session renewed", metadata: ["commands": "\(summary.commandCount)"])
                } catch {
                    logger.warning("kiosk session not renewed", metadata: ["error": "\(error.message)"])
                }
                return
            }
            // Counted from the first player who is here: nobody plays to an empty room.
            guard summary.connectedPlayerCount > 0 else {
                lobbyReadySince = nil
                return
            }
            let since = lobbyReadySince ?? now
            lobbyReadySince = since
            if now - since >= Int64(options.lobbySeconds) * 1000 {
                lobbyReadySince = nil
                do {
                    try await room.startGame(by: .box, now: now)
                    logger.info("kiosk game started", metadata: ["players": "\(summary.playerCount)"])
                } catch {
                    logger.warning("kiosk game not started", metadata: ["error": "\(error.message)"])
                }
            }
        case .roundEnd:
            await record(room, now: now)
            let since = endedSince ?? now
            endedSince = since
            if now - since >= Int64(options.endSeconds) * 1000 {
                endedSince = nil
                _ = await room.removeAbsentPlayers(absentForMs: Int64(options.awaySeconds) * 1000, now: now)
                do {
                    try await room.restartByBox(now: now)
                } catch {
                    logger.warning("kiosk lobby not reopened", metadata: ["error": "\(error.message)"])
                }
            }
        case .preparingRound, .roundIntro, .clueLevel, .pausedForBrake, .revealDestination, .followupQuestion,
            .scoreboard, .finalResults:
            if summary.phase == .finalResults { await record(room, now: now) }
            lobbyReadySince = nil
            endedSince = nil
            // The staff paused and left (their seat free again): the guests' game goes on.
            if summary.paused, !summary.hasHost {
                do {
                    try await room.resumeByBox(now: now)
                    logger.info("kiosk game resumed: the staff who paused it left")
                } catch {
                    logger.warning("kiosk game not resumed", metadata: ["error": "\(error.message)"])
                }
            }
            guard summary.connectedPlayerCount == 0 else { return }
            let since = emptySince ?? now
            emptySince = since
            if now - since >= options.emptyGameMs {
                emptySince = nil
                do {
                    try await room.end(reason: "expired", by: .box, now: now)
                    logger.info("kiosk game given up: nobody left playing")
                } catch {
                    logger.warning("kiosk game not given up", metadata: ["error": "\(error.message)"])
                }
            }
        }
    }

    /// When the next game starts, while the lobby counts down to it (players are connected).
    var nextGameAt: Int64? {
        lobbyReadySince.map { $0 + Int64(options.lobbySeconds) * 1000 }
    }

    /// Tonight's leaderboard, for the screen and the phones; `you`: the asking phone's device hash.
    func standings(you: String?, now: Int64) throws -> (top: [Tonight.Row], you: Tonight.Row?) {
        try options.tonight.standings(at: now, you: you, in: environment.database)
    }

    var dayStartsText: String { options.tonight.dayStartsText }

    /// Puts a finished game on tonight's leaderboard, once (the database ignores it again after a
    /// restart of the box).
    private func record(_ room: SessionRoom, now: Int64) async {
        guard let finished = await room.finishedGame() else { return }
        if let recorded, recorded.sessionId == room.id, recorded.game == finished.game { return }
        do {
            try options.tonight.record(
                sessionId: room.id, game: finished.game, players: finished.players, at: now, in: environment.database)
            recorded = (room.id, finished.game)
        } catch {
            logger.warning("kiosk results not recorded", metadata: ["error": "\(error)"])
        }
    }

    private func open(now: Int64) async {
        do {
            let settings = try options.sessionSettings(in: environment)
            let created = try await hub.create(role: .tv, settings: settings, now: now)
            let next = KioskSeat(
                sessionId: created.record.id, joinCode: created.record.joinCode, tvAuthToken: created.seat.token)
            seat = next
            lobbyReadySince = nil
            endedSince = nil
            emptySince = nil
            save(next)
            logger.info("kiosk session opened", metadata: ["session.id": "\(next.sessionId)"])
        } catch {
            logger.error("kiosk session not opened", metadata: ["error": "\(error.message)"])
        }
    }

    private func save(_ seat: KioskSeat) {
        guard let data = try? JSONEncoder().encode(seat) else { return }
        if !FileManager.default.createFile(atPath: file, contents: data, attributes: [.posixPermissions: 0o600]) {
            logger.warning("kiosk seat not saved", metadata: ["file": "\(file)"])
        }
    }
}
