import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore
import ServiceLifecycle

/// The box, put together: the one composition root that `tripto serve` and the tests both use.
struct Box: Sendable {
    let configuration: BoxConfiguration
    let hub: SessionHub
    let environment: RoomEnvironment
    let address: PublicAddress

    init(configuration: BoxConfiguration, logger: Logger) async throws {
        self.configuration = configuration
        let database = try BoxDatabase.open(path: configuration.databasePath)
        let packs = PackLibrary(
            directory: configuration.packsDirectory, preferredDefault: configuration.defaultPackId, logger: logger)
        if packs.summaries.isEmpty {
            logger.warning(
                "no packs found: sessions cannot be created", metadata: ["packs": "\(configuration.packsDirectory)"])
        }
        address = PublicAddress(configured: configuration.publicURL, port: configuration.port)
        environment = RoomEnvironment(
            database: database, packs: packs, address: address, limits: .init(maxPlayers: configuration.maxPlayers),
            logger: logger)
        hub = SessionHub(environment: environment, idleSessionSeconds: configuration.idleSessionSeconds)
        try await hub.restore(now: ServerClock.now())
    }

    /// The HTTP + WebSocket application with every route of the contract.
    func application(onListening: @escaping @Sendable (Int) async -> Void = { _ in }) -> some ApplicationProtocol {
        let address = self.address
        let hub = self.hub
        let router = Router(context: BoxRequestContext.self)
        router.add(middleware: SecurityHeadersMiddleware())
        router.get("/healthz") { _, _ in
            try JSON.response(Health(status: "ok", version: Tripto.version, sessions: await hub.liveCount))
        }
        router.get("/") { _, _ in StatusPage(address: address) }
        SessionsController(hub: hub, environment: environment, throttle: MissThrottle()).addRoutes(to: router)

        let sockets = Router(context: BoxRequestContext.self)
        SocketController(hub: hub, environment: environment).addRoutes(to: sockets)

        return Application(
            router: router,
            server: .http1WebSocketUpgrade(
                webSocketRouter: sockets,
                configuration: .init(
                    ws: .init(
                        maxFrameSize: SocketController.maxMessageBytes,
                        // A peer that stops answering pings is gone within two periods (about 12 s).
                        autoPing: .enabled(timePeriod: .seconds(6)),
                        closeTimeout: .seconds(5)))),
            configuration: .init(
                address: .hostname(configuration.host, port: configuration.port), serverName: "tripto"),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? configuration.port
                address.bound(port: port)
                await onListening(port)
            },
            logger: environment.logger)
    }

    /// Runs until SIGTERM or SIGINT. The session keeper is shut down first, so every socket gets its
    /// close frame (1001) before the HTTP server stops.
    func run(onListening: @escaping @Sendable (Int) async -> Void) async throws {
        let group = ServiceGroup(
            configuration: .init(
                services: [
                    .init(service: application(onListening: onListening)),
                    .init(
                        service: SessionKeeper(
                            hub: hub, sweepInterval: .seconds(min(30, max(1, configuration.idleSessionSeconds / 2))))),
                ],
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: environment.logger))
        try await group.run()
    }
}

struct Health: Codable, Sendable {
    var status: String
    var version: String
    var sessions: Int
}

/// Headers every response carries: no sniffing, no framing by other sites, no referrer leaks of join tokens.
struct SecurityHeadersMiddleware: RouterMiddleware {
    typealias Context = BoxRequestContext

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        var response = try await next(request, context)
        response.headers[.xContentTypeOptions] = "nosniff"
        response.headers[.init("Referrer-Policy")!] = "no-referrer"
        response.headers[.contentSecurityPolicy] = "default-src 'self'; frame-ancestors 'none'"
        return response
    }
}

/// What `/` shows until the web pages arrive: that the box runs, and where the API is.
struct StatusPage: ResponseGenerator {
    let address: PublicAddress

    func response(from request: Request, context: some RequestContext) throws -> Response {
        let html = """
            <!doctype html><html lang="en"><meta charset="utf-8"><meta name="viewport" content="width=device-width">
            <title>Tripto box</title>
            <body style="font-family: system-ui, sans-serif; max-width: 40rem; margin: 2rem auto; padding: 0 1rem">
            <h1>Tripto box is running</h1>
            <p>This box serves the game at <code>\(address.baseURL)</code>.</p>
            <p>The pages for phones and the TV are not installed yet. Clients that speak the wire
            protocol (the iOS host and tvOS apps) can connect now: <code>POST /v1/sessions</code>,
            <code>GET /v1/packs</code>, <code>GET /healthz</code>, WebSocket <code>/ws</code>.</p>
            </body></html>
            """
        return Response(
            status: .ok, headers: [.contentType: "text/html; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(string: html)))
    }
}
