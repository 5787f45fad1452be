import Core
import Foundation
import Hummingbird
import QR

/// The REST side of the contract (CONTRACT.md section 2): sessions, joining, packs, QR codes, clips.
struct SessionsController: Sendable {
    let hub: SessionHub
    let environment: RoomEnvironment
    let throttle: MissThrottle
    var creates = CreateThrottle()
    /// With `--kiosk`: its sessions' screen is the box's own, which nobody may take over.
    var kiosk: KioskDirector? = nil
    /// With `--staff-pin`: who joins the kiosk's session as HOST with it is the staff's seat.
    var staffPin: String? = nil
    /// Wrong staff PINs: five a minute from one address, then 429.
    let wrongPins = MissThrottle(limit: 5, windowMs: 60_000)
    /// Names with insults or slurs are refused; nil with `--allow-any-name`.
    var names: NameFilter? = nil

    func addRoutes(to router: Router<BoxRequestContext>) {
        router.post("/v1/sessions") { request, context in try await create(request, context) }
        router.get("/v1/sessions/by-code/:code") { request, context in
            // A path segment comes percent-encoded: "ABC%20DEF" is a code typed with a space.
            try await lookup(code: context.parameters.get("code")?.removingPercentEncoding ?? "", context)
        }
        router.get("/v1/sessions/lookup") { request, context in
            guard let code = request.uri.queryParameters.get("joinCode"), !code.isEmpty else {
                throw BoxError.badRequest("Give the game's code as ?joinCode=")
            }
            return try await lookup(code: code, context)
        }
        router.post("/v1/sessions/:sessionId/join") { request, context in try await join(request, context) }
        router.post("/v1/sessions/:sessionId/tv") { request, context in try await joinAsTv(request, context) }
        router.delete("/v1/sessions/:sessionId") { request, context in try await end(request, context) }
        router.get("/v1/sessions/:sessionId/qr.svg") { request, context in try await qrCode(context) }
        router.get("/v1/sessions/:sessionId/assets/:clipId") { request, context in try await clip(context) }
    }

    // MARK: Create

    struct CreateRequest: Decodable {
        var role: Role?
        /// CONTRACT 4.2: the name of a player who creates a game without a host.
        var name: String?
        var settings: SettingsRequest?
    }

    struct CreateResponse: Encodable {
        var sessionId: String
        var joinCode: String
        var joinToken: String
        var joinUrl: String
        var wsUrl: String
        var role: Role
        var settings: Settings
        var hostAuthToken: String?
        var tvJoinToken: String?
        var tvAuthToken: String?
        /// A captain's seat (CONTRACT 4.2).
        var playerId: String?
        var playerAuthToken: String?
    }

    /// Live sessions the box lets callers on the network create; beyond, they are refused (429)
    /// until one ends. The box's own (its kiosk, loopback) are not held back.
    static let liveLimit = 1_000

    private func create(_ request: Request, _ context: BoxRequestContext) async throws -> Response {
        if !context.isFromTheBox {
            if let wait = creates.wait(for: context.callerAddress, now: ServerClock.now()) {
                throw BoxError.rateLimited("Too many new games from this device; wait \(wait) s", retryAfter: wait)
            }
            guard await hub.liveCount < Self.liveLimit else {
                throw BoxError.rateLimited("The box holds as many games as it can; try again later", retryAfter: 60)
            }
        }
        let body = try await request.decodeBody(CreateRequest.self, context: context)
        let role = body.role ?? .host
        var settingsRequest = body.settings ?? SettingsRequest()
        var sentDevice: String?
        var newDevice: String?
        if role == .player {
            // A game without a host plays itself (CONTRACT 4.2), its creator the first player.
            guard let name = body.name else { throw BoxError(status: 400, code: .invalidName, message: "Enter a name") }
            if let names, names.refuses(name) {
                throw BoxError(
                    status: 400, code: .invalidName, message: "Please choose another name: this one is not allowed here"
                )
            }
            settingsRequest.autoAdvance = true
            sentDevice = DeviceCookie.token(in: request.headers)
            newDevice = sentDevice == nil ? Secrets.token() : nil
        }
        let settings = try environment.settings(from: settingsRequest)
        let created = try await hub.create(
            role: role, settings: settings, name: role == .player ? body.name : nil,
            device: (sentDevice ?? newDevice).map(Secrets.hash), now: ServerClock.now())
        let record = created.record
        var response = try JSON.response(
            CreateResponse(
                sessionId: record.id, joinCode: record.joinCode, joinToken: record.joinToken,
                joinUrl: environment.address.joinURL(sessionId: record.id, joinToken: record.joinToken),
                wsUrl: environment.address.webSocketURL, role: role, settings: settings,
                hostAuthToken: role == .host ? created.seat.token : nil,
                tvJoinToken: role == .tv ? nil : created.tvJoinToken,
                tvAuthToken: role == .tv ? created.seat.token : nil,
                playerId: role == .player ? created.seat.participantId : nil,
                playerAuthToken: role == .player ? created.seat.token : nil),
            status: .created)
        if let newDevice { response.headers[.setCookie] = DeviceCookie.header(newDevice) }
        return response
    }

    // MARK: Lookup

    struct LookupResponse: Encodable {
        var sessionId: String
        var joinCode: String
        var hasHost: Bool
        var hasTv: Bool
        var playerCount: Int
        var phase: Phase
    }

    private func lookup(code raw: String, _ context: BoxRequestContext) async throws -> Response {
        let now = ServerClock.now()
        let caller = context.callerAddress
        if let wait = throttle.wait(for: caller, now: now) {
            throw BoxError.rateLimited("Too many wrong codes; wait a minute", retryAfter: wait)
        }
        guard let code = JoinCode.normalize(raw), let room = await hub.room(code: code) else {
            throttle.recordMiss(caller, now: now)
            throw BoxError.sessionNotFound
        }
        let summary = await room.summary(now: now)
        guard !summary.isEnded else {
            throttle.recordMiss(caller, now: now)
            throw BoxError.sessionNotFound
        }
        return try JSON.response(
            LookupResponse(
                sessionId: room.id, joinCode: room.joinCode, hasHost: summary.hasHost, hasTv: summary.hasTv,
                playerCount: summary.playerCount, phase: summary.phase))
    }

    // MARK: Join

    struct JoinRequest: Decodable {
        var name: String?
        var role: Role?
        var joinToken: String?
        var joinCode: String?
        /// CONTRACT 4.4: the venue's staff PIN, for HOST in a kiosk's session.
        var staffPin: String?
    }

    struct JoinResponse: Encodable {
        var sessionId: String
        var joinCode: String
        var playerId: String
        var playerAuthToken: String
        var role: Role
        var wsUrl: String
    }

    private func join(_ request: Request, _ context: BoxRequestContext) async throws -> Response {
        let body = try await request.decodeBody(JoinRequest.self, context: context)
        let role = body.role ?? .player
        guard role != .tv else {
            throw BoxError.badRequest("role must be PLAYER or HOST; a TV joins at /v1/sessions/{id}/tv")
        }
        let now = ServerClock.now()
        let (room, summary) = try await liveRoom(context, now: now)
        let tokenMatches = body.joinToken.map { Secrets.equal($0, summary.joinToken) } ?? false
        try admit(tokenMatches: tokenMatches, code: body.joinCode, to: room, context, now: now)
        // The kiosk's game has no host but its staff: a guest who took the seat could pause it for
        // the evening.
        if role == .host, await isKiosk(room) { try checkStaffPin(body.staffPin, context, now: now) }
        if role == .player, let names, let name = body.name, names.refuses(name) {
            throw BoxError(
                status: 400, code: .invalidName,
                message: "Please choose another name: this one is not allowed here")
        }
        // A phone's first join gives it a device cookie; the next ones bring it back.
        let sentDevice = role == .player ? DeviceCookie.token(in: request.headers) : nil
        let newDevice = role == .player && sentDevice == nil ? Secrets.token() : nil
        let device = (sentDevice ?? newDevice).map(Secrets.hash)
        let seat = try await room.seat(role, name: body.name, device: device, now: now)
        var response = try JSON.response(
            JoinResponse(
                sessionId: room.id, joinCode: room.joinCode, playerId: seat.participantId, playerAuthToken: seat.token,
                role: role, wsUrl: environment.address.webSocketURL),
            status: .created)
        if let newDevice { response.headers[.setCookie] = DeviceCookie.header(newDevice) }
        return response
    }

    struct TvRequest: Decodable {
        var tvJoinToken: String?
        var joinCode: String?
    }

    struct TvResponse: Encodable {
        var sessionId: String
        var joinCode: String
        var tvAuthToken: String
        var wsUrl: String
    }

    private func joinAsTv(_ request: Request, _ context: BoxRequestContext) async throws -> Response {
        let body = try await request.decodeBody(TvRequest.self, context: context)
        let now = ServerClock.now()
        let (room, summary) = try await liveRoom(context, now: now)
        let tokenMatches = body.tvJoinToken.map { Secrets.equal(Secrets.hash($0), summary.tvJoinTokenHash) } ?? false
        try admit(tokenMatches: tokenMatches, code: body.joinCode, to: room, context, now: now)
        // The code is on the venue's screen for everyone to read; the screen itself must stay the box's.
        if await isKiosk(room) {
            throw BoxError(
                status: 403, code: .forbidden, message: "This game's screen is the box's own; join as a player")
        }
        let seat = try await room.seat(.tv, name: nil, now: now)
        return try JSON.response(
            TvResponse(
                sessionId: room.id, joinCode: room.joinCode, tvAuthToken: seat.token,
                wsUrl: environment.address.webSocketURL),
            status: .created)
    }

    /// A HOST join into the kiosk's session: the staff's PIN, or 403; past five wrong PINs a minute
    /// from one network (an IPv4 address, an IPv6 /64), 429 until the minute is over (the right PIN too).
    private func checkStaffPin(_ pin: String?, _ context: BoxRequestContext, now: Int64) throws(BoxError) {
        guard let staffPin else {
            throw BoxError(status: 403, code: .forbidden, message: "This game runs by itself; join as a player")
        }
        guard let pin else {
            throw BoxError(
                status: 403, code: .forbidden, message: "This game runs by itself; staff join with their PIN")
        }
        // Counted by network (an IPv6 phone may take a new address for each request), checked and
        // counted at once; a guest who taps "Host" without a PIN is not guessing one.
        var wrong = false
        let caller = CreateThrottle.network(of: context.callerAddress)
        if let wait = wrongPins.guess(
            caller, now: now,
            isWrong: {
                wrong = !Secrets.equal(pin, staffPin); return wrong
            })
        {
            throw BoxError.rateLimited("Too many wrong PINs: try again in \(wait) s", retryAfter: wait)
        }
        if wrong { throw BoxError(status: 403, code: .forbidden, message: "That is not the staff PIN") }
    }

    /// Whether this is the `--kiosk` session: its screen is the box's own, and it has no host.
    private func isKiosk(_ room: SessionRoom) async -> Bool {
        guard let kiosk else { return false }
        return await kiosk.seat?.sessionId == room.id
    }

    /// A join needs the session's token or its code; a wrong guess counts as a lookup miss.
    private func admit(
        tokenMatches: Bool, code: String?, to room: SessionRoom, _ context: BoxRequestContext, now: Int64
    )
        throws(BoxError)
    {
        guard tokenMatches || code.flatMap(JoinCode.normalize) == room.joinCode else {
            throttle.recordMiss(context.callerAddress, now: now)
            throw BoxError.invalidJoinToken
        }
    }

    // MARK: End, QR, clips

    private func end(_ request: Request, _ context: BoxRequestContext) async throws -> Response {
        let now = ServerClock.now()
        let (room, _) = try await liveRoom(context, now: now)
        guard let token = request.bearerToken, let participant = try environment.database.participant(token: token)
        else {
            throw BoxError.unauthorized
        }
        guard participant.sessionId == room.id, await room.participantRole(participant.id) == .host else {
            throw BoxError(status: 403, code: .forbidden, message: "Only this session's host may end it")
        }
        try await room.end(reason: "host_ended", by: .participant(participant.id), now: now)
        await hub.forget(room)
        return Response(status: .noContent)
    }

    private func qrCode(_ context: BoxRequestContext) async throws -> Response {
        let (room, summary) = try await liveRoom(context, now: ServerClock.now())
        let url = environment.address.joinURL(sessionId: room.id, joinToken: summary.joinToken)
        let svg = try QRCode(url).svg()
        return Response(
            status: .ok, headers: [.contentType: "image/svg+xml", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(string: svg)))
    }

    private func clip(_ context: BoxRequestContext) async throws -> Response {
        let (room, _) = try await liveRoom(context, now: ServerClock.now())
        let clipId = context.parameters.get("clipId") ?? ""
        let missing = BoxError(
            status: 404, code: .assetNotFound, message: "No clip \(clipId) in this session's pack")
        guard let path = await room.clipPath(clipId) else { throw missing }
        // Read on NIO's thread pool, in chunks: the event loop that serves the game's sockets goes on.
        let body: ResponseBody
        do {
            body = try await FileIO().loadFile(path: path, context: context)
        } catch {
            throw missing
        }
        // Not kept by the browser: after a restart the same address is another destination's line.
        return Response(status: .ok, headers: [.contentType: "audio/wav", .cacheControl: "no-cache"], body: body)
    }

    /// The session named in the path, if it is live; 410 when it has ended, 404 when it never was.
    private func liveRoom(
        _ context: BoxRequestContext, now: Int64
    ) async throws(BoxError) -> (SessionRoom, SessionRoom.Summary) {
        let id = context.parameters.get("sessionId") ?? ""
        if let room = await hub.room(id: id) {
            let summary = await room.summary(now: now)
            if !summary.isEnded { return (room, summary) }
            throw BoxError(.sessionEnded)
        }
        if (try? environment.database.session(id))?.endedAt != nil { throw BoxError(.sessionEnded) }
        throw BoxError.sessionNotFound
    }
}

/// JSON response bodies, with sorted keys so they read the same every time.
enum JSON {
    static func response<Value: Encodable>(_ value: Value, status: HTTPResponse.Status = .ok) throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Response(
            status: status, headers: [.contentType: "application/json; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(bytes: try encoder.encode(value))))
    }
}
