import Core
import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import ServiceLifecycle

/// Why the box could not start, in words for whoever started it (`tripto serve` exits with it).
struct CannotStart: Error, CustomStringConvertible {
    var description: String
}

/// The box, put together: the one composition root that `tripto serve` and the tests both use.
struct Box: Sendable {
    let configuration: BoxConfiguration
    let hub: SessionHub
    let environment: RoomEnvironment
    let address: PublicAddress
    let web: WebPages
    /// The names the box refuses (`NameFilter`).
    let names: NameFilter
    let kiosk: KioskDirector?
    /// The open WebSockets, which the box closes when it stops.
    let sockets = OpenSockets()
    /// Held while the box runs: no second box works on the same sessions.
    let dataFolder: DataFolder
    /// What writing packs needs (`AdminToken`).
    let adminToken: String
    /// What is wrong with the box now (`/healthz`).
    let health = BoxHealth()

    init(configuration: BoxConfiguration, logger: Logger) async throws {
        self.configuration = configuration
        dataFolder = try DataFolder(configuration.dataDirectory)
        let database: BoxDatabase
        do {
            database = try BoxDatabase.open(path: configuration.databasePath)
        } catch {
            throw CannotStart(description: "cannot open the database \(configuration.databasePath): \(error)")
        }
        do {
            adminToken = try AdminToken.ensure(in: configuration.dataDirectory)
        } catch {
            throw CannotStart(description: "\(error)")
        }
        let packs = PackLibrary(
            directory: configuration.packsDirectory,
            boxDirectory: (configuration.dataDirectory as NSString).appendingPathComponent("packs"),
            preferredDefault: configuration.defaultPackId, logger: logger)
        if packs.summaries.isEmpty {
            logger.warning(
                "no packs found: sessions cannot be created", metadata: ["packs": "\(configuration.packsDirectory)"])
        }
        if let wanted = configuration.defaultPackId, packs.defaultPackId != wanted {
            let there = packs.summaries.map(\.packId).joined(separator: ", ")
            throw CannotStart(
                description:
                    "--default-pack \(wanted): no valid pack of that id in \(configuration.packsDirectory) (there: \(there.isEmpty ? "none" : there))"
            )
        }
        guard let webDirectory = WebPages.bundledDirectory else { throw WebPages.Missing(path: "the resource bundle") }
        web = try WebPages(directory: webDirectory)
        names = try NameFilter.bundled()
        address = PublicAddress(configured: configuration.publicURL, port: configuration.port)
        let scale = configuration.autoPace
        let health = self.health
        let sounds = SoundShelf(
            folder: URL(
                fileURLWithPath: configuration.soundsFolder
                    ?? (configuration.dataDirectory as NSString).appendingPathComponent("sounds")))
        environment = RoomEnvironment(
            database: database, packs: packs, address: address, limits: .init(maxPlayers: configuration.maxPlayers),
            pacing: Pacing().scaled(by: scale), livingRoomPacing: Pacing.livingRoom.scaled(by: scale),
            speaker: configuration.audioDevice.map { device in
                Speaker(options: .init(device: device, shelf: sounds), health: health, logger: logger)
            },
            sounds: sounds, health: health, logger: logger)
        hub = SessionHub(
            environment: environment, idleSessionSeconds: configuration.idleSessionSeconds,
            keepEndedDays: configuration.keepEndedDays)
        try await hub.restore(now: ServerClock.now())
        if let options = configuration.kiosk {
            do {
                _ = try options.sessionSettings(in: environment)
            } catch {
                throw CannotStart(description: "--kiosk-settings: \(error.message)")
            }
            kiosk = KioskDirector(
                hub: hub, environment: environment, options: options, dataDirectory: configuration.dataDirectory)
        } else {
            kiosk = nil
        }
    }

    /// Where the server listens, once it does.
    struct Bound: Sendable {
        var port: Int
        /// The address it is bound to: `--host`, resolved (`localhost` is 127.0.0.1 or ::1).
        var listening: ListenHost
    }

    /// The HTTP + WebSocket application with every route of the contract.
    func application(onListening: @escaping @Sendable (Bound) async -> Void = { _ in }) -> some ApplicationProtocol {
        let hub = self.hub
        // HEAD is answered as GET without the body: uptime checks and `curl -I` use it.
        let router = Router(context: BoxRequestContext.self, options: .autoGenerateHeadEndpoints)
        router.add(middleware: SecurityHeadersMiddleware())
        let (health, dataDirectory) = (self.health, configuration.dataDirectory)
        router.get("/healthz") { _, _ in
            health.checkDisk(at: dataDirectory)
            let problems = health.current
            return try JSON.response(
                Health(
                    status: problems.isEmpty ? "ok" : "degraded", version: Tripto.version,
                    sessions: await hub.liveCount, problems: problems))
        }
        web.addRoutes(to: router)
        if let kiosk { KioskController(director: kiosk).addRoutes(to: router) }
        SessionsController(
            hub: hub, environment: environment, throttle: MissThrottle(), kiosk: kiosk,
            staffPin: configuration.kiosk?.staffPin, names: configuration.filterNames ? names : nil
        ).addRoutes(to: router)
        PacksController(hub: hub, packs: environment.packs, adminToken: adminToken, logger: environment.logger)
            .addRoutes(to: router)
        if let sounds = environment.sounds { SoundsController(shelf: sounds).addRoutes(to: router) }

        let sockets = SocketController(hub: hub, environment: environment, open: self.sockets)

        return Application(
            router: router,
            server: HTTPServerBuilder { responder in BoxChannel(responder: responder, sockets: sockets) },
            configuration: .init(
                address: .hostname(configuration.host, port: configuration.port), serverName: "tripto"),
            onServerRunning: { channel in
                let bound = Bound(
                    port: channel.localAddress?.port ?? configuration.port,
                    listening: ListenHost(host: channel.localAddress?.ipAddress ?? configuration.host))
                address.bound(port: bound.port, listening: bound.listening)
                await onListening(bound)
            },
            logger: environment.logger)
    }

    /// Runs until SIGTERM or SIGINT. The session keeper is shut down first, so every socket gets its
    /// close frame (1001) before the HTTP server stops.
    func run(onListening: @escaping @Sendable (Int) async -> Void) async throws {
        let (listening, listeningSink) = AsyncStream.makeStream(of: Bound.self)
        let systemd = SystemdNotifier()
        let (served, servedSink) = AsyncStream.makeStream(of: Void.self)
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = [
            .init(
                service: application { bound in
                    listeningSink.yield(bound)
                    listeningSink.finish()
                    await onListening(bound.port)
                    servedSink.yield()
                    servedSink.finish()
                }),
            .init(
                service: SessionKeeper(
                    hub: hub, sockets: sockets,
                    sweepInterval: .seconds(min(30, max(1, configuration.idleSessionSeconds / 2))))),
        ]
        if systemd.socketPath != nil {
            services.append(.init(service: SystemdWatchdog(notifier: systemd, listening: served)))
        }
        if let kiosk { services.append(.init(service: kiosk)) }
        if let speaker = environment.speaker { services.append(.init(service: SpeakerService(speaker: speaker))) }
        if configuration.announce {
            services.append(
                .init(
                    service: Announcer(
                        name: configuration.boxName ?? Announcer.defaultName(),
                        boxId: Announcer.boxId(dataDirectory: configuration.dataDirectory), listening: listening,
                        health: health, logger: environment.logger)))
        }
        let group = ServiceGroup(
            configuration: .init(
                services: services,
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: environment.logger))
        try await group.run()
    }
}

/// `/healthz`: `status` is "ok" when nothing is wrong, else "degraded" with what is (`problems`).
struct Health: Codable, Sendable {
    var status: String
    var version: String
    var sessions: Int
    var problems: [BoxHealth.Problem]
}

/// Headers every response carries: no sniffing, no framing by other sites, no referrer leaks of join tokens,
/// and a content policy that lets pages load nothing from outside the box and run no inline script.
struct SecurityHeadersMiddleware: RouterMiddleware {
    typealias Context = BoxRequestContext

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as any HTTPResponseError {
            // Error answers (404s, the contract's error bodies) carry the same headers.
            response = try error.response(from: request, context: context)
        }
        response.headers[.xContentTypeOptions] = "nosniff"
        response.headers[.init("Referrer-Policy")!] = "no-referrer"
        response.headers[.contentSecurityPolicy] =
            "default-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; "
            + "object-src 'none'; frame-ancestors 'none'"
        return response
    }
}
