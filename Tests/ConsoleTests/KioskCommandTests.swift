import Testing

@testable import Console

/// What `tripto-console kiosk` says while it cannot have the kiosk's seat.
@Suite("kiosk command", .timeLimit(.minutes(5)))
struct KioskCommandTests {
    static let url = "http://127.0.0.1:8080"

    @Test("an unreachable box, one between kiosk sessions and one without --kiosk are waited for, saying so")
    func waits() {
        #expect(
            KioskCommand.wait(after: .unreachable(Self.url, "refused"), url: Self.url)
                == .retry("waiting for the box at http://127.0.0.1:8080 (not reachable yet)…"))
        #expect(
            KioskCommand.wait(after: .answered("GET /v1/kiosk", status: 404), url: Self.url)
                == .retry(
                    "this box is not running --kiosk (start it with tripto serve --kiosk); asking again every 2 s…"))
        #expect(
            KioskCommand.wait(after: .refused(code: "STORAGE_UNAVAILABLE", message: "No kiosk session"), url: Self.url)
                == .retry("waiting for the box's kiosk session…"))
    }

    @Test("403 (not on the box itself) leaves with status 2, saying the seat is only for the box's own screen")
    func forbidden() throws {
        let wait = KioskCommand.wait(
            after: .refused(code: "FORBIDDEN", message: "The kiosk seat is only for the box's own screen"),
            url: "http://192.168.1.20:8080")
        guard case .leave(let error) = wait else {
            Issue.record("\(wait)")
            return
        }
        #expect(error.exitStatus == 2)
        #expect(
            error.description
                == "The box at http://192.168.1.20:8080 gives its kiosk seat only to its own screen (loopback): run tripto-console kiosk on the box itself, with --url http://127.0.0.1:PORT."
        )
    }
}
