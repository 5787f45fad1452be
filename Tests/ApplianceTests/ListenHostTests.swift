import Foundation
import Testing

@testable import Appliance

/// `--host`: where the box's links point and where it is announced when it listens on one address.
@Suite("Listening address", .timeLimit(.minutes(5)))
struct ListenHostTests {
    @Test("bound to every interface the links carry the LAN address; bound to one address, that address")
    func links() {
        func link(_ configured: String?, bound host: String, port: Int) -> String {
            let address = PublicAddress(configured: configured, port: 0)
            address.bound(port: port, listening: ListenHost(host: host))
            return address.baseURL
        }
        let lan = PublicAddress.lanIPv4() ?? "127.0.0.1"
        #expect(link(nil, bound: "0.0.0.0", port: 8080) == "http://\(lan):8080")
        #expect(link(nil, bound: "::", port: 8080) == "http://\(lan):8080")
        #expect(link(nil, bound: "127.0.0.1", port: 8080) == "http://127.0.0.1:8080")
        #expect(link(nil, bound: "::1", port: 9000) == "http://[::1]:9000")
        // --public-url wins over both.
        #expect(link("http://quiz.lan/", bound: "127.0.0.1", port: 80) == "http://quiz.lan")
    }

    @Test("announced on loopback for a loopback address, on every interface for the wildcard or another address")
    func interfaces() {
        let loopback = Int32(if_nametoindex("lo"))
        #expect(loopback > 0)
        for host in ["127.0.0.1", "127.0.0.53", "::1"] {
            #expect(ListenHost(host: host).interfaceIndex == loopback, "\(host)")
        }
        for host in ["0.0.0.0", "::", "", "192.0.2.7"] {
            #expect(ListenHost(host: host).interfaceIndex == nil, "\(host)")
        }
        if let lan = PublicAddress.lanIPv4() {
            let index = ListenHost(host: lan).interfaceIndex
            #expect(index != nil && index != loopback, "\(lan)")
        }
    }

    /// The server is bound first: a name (`localhost`, the machine's own name) is whatever address
    /// it resolved to, and the links name that address, as the contract asks, not the name.
    @Test("a name given to --host: the links carry the address it was bound to; --host [::1] is ::1")
    func boundByName() async throws {
        for host in ["localhost", "[::1]"] {
            let box = try BoxProcess(arguments: ["--host", host], fixedLinks: false)
            try await box.start()
            // localhost is 127.0.0.1 or ::1, as the resolver has it. (Python's client: Foundation's
            // does not take an IPv6 address in a URL.)
            var joinURL: String?
            for link in ["127.0.0.1", "[::1]"] where joinURL == nil {
                let url = try? await Shell.run(
                    "/usr/bin/python3",
                    [
                        "-c",
                        "import json, sys, urllib.request as r; print(json.load(r.urlopen(r.Request(sys.argv[1], "
                            + "data=b'{}', headers={'Content-Type': 'application/json'})))['joinUrl'])",
                        "http://\(link):\(box.port)/v1/sessions",
                    ])
                if let url {
                    joinURL = url
                    #expect(url.hasPrefix("http://\(link):\(box.port)/join/"), "\(host): \(url)")
                }
            }
            #expect(joinURL != nil, "\(host)")
            await box.stop()
        }
        let scoped = try await PackCommandTests.run(["serve", "--host", "fe80::1%lo", "--port", "0"])
        #expect(scoped.status == 64)
        #expect(scoped.output.contains("--host cannot be a scoped IPv6 address"))
    }
}
