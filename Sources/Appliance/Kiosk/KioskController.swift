import Hummingbird

/// `GET /v1/kiosk`: the kiosk session and its TV token, for the box's own screen (`/tv?kiosk`).
/// Answered only to the box itself (loopback): a phone on the LAN cannot take the TV's seat.
/// `GET /v1/kiosk/tonight`: tonight's leaderboard, for the screen and every phone.
struct KioskController: Sendable {
    let director: KioskDirector

    struct Reply: Encodable {
        var sessionId: String
        var joinCode: String
        var tvAuthToken: String
    }

    struct TonightReply: Encodable {
        /// The kiosk's session now: a phone in another session of the box shows no leaderboard.
        var sessionId: String?
        var dayStartsAt: String
        var top: [Tonight.Row]
        var you: Tonight.Row?
        var nextGameAtServerMs: Int64?
        var serverTimeMs: Int64
    }

    func addRoutes(to router: Router<BoxRequestContext>) {
        router.get("/v1/kiosk") { _, context in
            guard context.isFromTheBox else {
                throw BoxError(
                    status: 403, code: .forbidden, message: "The kiosk seat is only for the box's own screen")
            }
            guard let seat = await director.currentSeat() else {
                throw BoxError(status: 503, code: .storageUnavailable, message: "No kiosk session")
            }
            return try JSON.response(
                Reply(sessionId: seat.sessionId, joinCode: seat.joinCode, tvAuthToken: seat.tvAuthToken))
        }
        router.get("/v1/kiosk/tonight") { request, _ in
            let now = ServerClock.now()
            let you = DeviceCookie.token(in: request.headers).map(Secrets.hash)
            let standings: (top: [Tonight.Row], you: Tonight.Row?)
            do {
                standings = try await director.standings(you: you, now: now)
            } catch {
                throw BoxError(status: 503, code: .storageUnavailable, message: "Tonight's results cannot be read")
            }
            return try JSON.response(
                TonightReply(
                    sessionId: await director.seat?.sessionId, dayStartsAt: await director.dayStartsText,
                    top: standings.top, you: standings.you,
                    nextGameAtServerMs: await director.nextGameAt, serverTimeMs: now))
        }
    }
}
