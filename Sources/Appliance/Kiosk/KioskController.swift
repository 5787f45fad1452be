import Hummingbird

/// `GET /v1/kiosk`: the kiosk session and its TV token, for the box's own screen (`/tv?kiosk`).
/// Answered only to the box itself (loopback): a phone on the LAN cannot take the TV's seat.
struct KioskController: Sendable {
    let director: KioskDirector

    struct Reply: Encodable {
        var sessionId: String
        var joinCode: String
        var tvAuthToken: String
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
    }
}
