import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The base URL phones reach the box at: `--public-url`, else `http://<LAN IPv4>:<port>`, or the
/// one address the server is bound to (`--host`). Phones often cannot resolve `.local` names, so
/// the address is numeric. The port is the one actually bound.
final class PublicAddress: Sendable {
    private let configured: String?
    private let state = Mutex<String>("http://127.0.0.1:8080")

    init(configured: String?, port: Int) {
        self.configured = configured.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
        bound(port: port)
    }

    /// Called once the server listens, with the real port (which differs when 0 was asked for) and
    /// the address it is bound to.
    func bound(port: Int, listening: ListenHost = ListenHost(host: "0.0.0.0")) {
        let base = configured ?? "http://\(listening.urlHost ?? Self.lanIPv4() ?? "127.0.0.1"):\(port)"
        state.withLock { $0 = base }
    }

    var baseURL: String { state.withLock { $0 } }

    var webSocketURL: String {
        let base = baseURL
        if base.hasPrefix("https://") { return "wss://" + base.dropFirst("https://".count) + "/ws" }
        if base.hasPrefix("http://") { return "ws://" + base.dropFirst("http://".count) + "/ws" }
        return base + "/ws"
    }

    func joinURL(sessionId: String, joinToken: String) -> String {
        "\(baseURL)/join/\(sessionId)?t=\(joinToken)"
    }

    /// The first IPv4 address of an interface that is up and not loopback.
    static func lanIPv4() -> String? {
        let found = NetworkInterfaces.addresses().filter {
            !$0.address.contains(":") && $0.flags & Int32(IFF_UP) != 0 && $0.flags & Int32(IFF_LOOPBACK) == 0
        }
        // Prefer wired and wireless LAN names over container bridges and VPNs.
        let preferred = found.first { $0.name.hasPrefix("e") || $0.name.hasPrefix("w") }
        return (preferred ?? found.first)?.address
    }
}
