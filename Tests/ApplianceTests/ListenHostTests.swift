import Foundation
import Testing

@testable import Appliance

/// `--host`: where the box's links point and where it is announced when it listens on one address.
@Suite("Listening address")
struct ListenHostTests {
    @Test("on every interface the links carry the LAN address; on one address, that address")
    func links() {
        let everywhere = PublicAddress(configured: nil, listening: ListenHost(host: "0.0.0.0"), port: 8080)
        #expect(everywhere.baseURL == "http://\(PublicAddress.lanIPv4() ?? "127.0.0.1"):8080")
        #expect(
            PublicAddress(configured: nil, listening: ListenHost(host: "127.0.0.1"), port: 8080).baseURL
                == "http://127.0.0.1:8080")
        #expect(
            PublicAddress(configured: nil, listening: ListenHost(host: "::1"), port: 9000).baseURL
                == "http://[::1]:9000")
        // --public-url wins over both.
        #expect(
            PublicAddress(configured: "http://quiz.lan/", listening: ListenHost(host: "127.0.0.1"), port: 80).baseURL
                == "http://quiz.lan")
    }

    @Test("announced on loopback for a loopback address, on every interface for the wildcard or a name")
    func interfaces() {
        let loopback = Int32(if_nametoindex("lo"))
        #expect(loopback > 0)
        for host in ["127.0.0.1", "127.0.0.53", "localhost", "::1", "[::1]"] {
            #expect(ListenHost(host: host).interfaceIndex == loopback, "\(host)")
        }
        for host in ["0.0.0.0", "::", "", "quiz.example"] {
            #expect(ListenHost(host: host).interfaceIndex == nil, "\(host)")
        }
        if let lan = PublicAddress.lanIPv4() {
            let index = ListenHost(host: lan).interfaceIndex
            #expect(index != nil && index != loopback, "\(lan)")
        }
    }
}
