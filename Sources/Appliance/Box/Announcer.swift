import Discovery
import Foundation
import Logging
import ServiceLifecycle

/// Announces the box on the LAN by mDNS while it serves, as `_tripto._tcp` and `_http._tcp`, on the
/// interface it listens on, or on every one (`--host`, `ListenHost`). It waits
/// for the port the server listens on, then keeps the announcement up: with no avahi-daemon it warns
/// once and tries again every few seconds; it never stops the box. Withdrawn on shutdown.
struct Announcer: Service {
    let name: String
    let boxId: String
    /// Where the server listens, once it does.
    let listening: AsyncStream<Box.Bound>
    /// Told when the box has not been announced for `graceSeconds` (`/healthz`).
    let health: BoxHealth
    let logger: Logger

    /// Time Avahi gets to confirm the announcement before the box says it is not announced.
    static let graceSeconds: Int64 = 6

    /// Protocol version of the wire contract, in the TXT records.
    static let protocolVersion = "1"

    func run() async throws {
        var iterator = listening.makeAsyncIterator()
        guard let bound = await iterator.next() else { return }
        let advertiser = Advertiser(
            Announcement(
                name: name, port: UInt16(bound.port),
                txt: [
                    ("proto", Self.protocolVersion), ("path", "/"), ("id", boxId), ("name", name),
                    ("version", Tripto.version),
                ],
                types: [Announcement.triptoType, Announcement.httpType],
                interfaceIndex: bound.listening.interfaceIndex,
                family: bound.listening.isIPv6.map { $0 ? .ipv6 : .ipv4 }),
            logger: logger)
        defer { advertiser.stop() }
        try? await cancelWhenGracefulShutdown {
            var unannouncedSince = ServerClock.now()
            while !Task.isCancelled {
                advertiser.connect()
                let now = ServerClock.now()
                if advertiser.currentName != nil {
                    unannouncedSince = now
                    health.report(.mdns, nil)
                } else if now - unannouncedSince >= Self.graceSeconds * 1_000 {
                    health.report(
                        .mdns,
                        "The box is not announced on the network (is avahi-daemon running?): "
                            + "phones need its address or QR code")
                }
                try await Task.sleep(for: .seconds(3))
            }
        }
        health.report(.mdns, nil)
    }

    /// The box's stable id: made once, kept in the data directory.
    static func boxId(dataDirectory: String) -> String {
        let file = (dataDirectory as NSString).appendingPathComponent("box-id")
        if let text = try? String(contentsOfFile: file, encoding: .utf8) {
            let id = text.trimmingCharacters(in: .whitespacesAndNewlines)
            if !id.isEmpty { return id }
        }
        let id = "box-" + Secrets.sessionId()
        try? (id + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        return id
    }

    /// "Tripto box (hostname)" unless the owner named it.
    static func defaultName() -> String {
        let host = ProcessInfo.processInfo.hostName.split(separator: ".").first.map(String.init) ?? ""
        return host.isEmpty || host == "localhost" ? "Tripto box" : "Tripto box (\(host))"
    }
}
