import Foundation
import Testing

/// The box on the LAN: announced through a real avahi-daemon (on a private bus, confined to a
/// loopback-only network namespace) and found with avahi-browse and `tripto discover`.
@Suite(
    "Discovery (mDNS)", .serialized,
    .enabled(if: getuid() == 0, "needs root: the daemons run in their own network namespace"), .timeLimit(.minutes(5)))
struct DiscoveryTests {
    /// The first `_tripto._tcp` announcement that names `text`, if one is seen within `limit`.
    private static func announcement(
        naming text: String, in mdns: MDNSLoopback, within limit: Duration = .seconds(10)
    ) async throws -> String? {
        try await poll(for: limit, every: .milliseconds(200)) {
            try await mdns.browse("_tripto._tcp").first { $0.contains(text) }
        }
    }

    @Test("announced as _tripto._tcp and _http._tcp with its TXT records; found by avahi-browse and tripto discover")
    func announced() async throws {
        try await MDNSLoopback.running { mdns in
            let box = try BoxProcess(
                arguments: ["--name", "Living room"], environment: mdns.environment, announce: true)
            try await box.start()
            defer { box.terminate() }

            let line = try #require(try await Self.announcement(naming: "Living room", in: mdns))
            // =;lo;IPv4;Living\032room;_tripto._tcp;local;host.local;127.0.0.1;PORT;"version=0.1.0" "name=…" …
            let fields = line.split(separator: ";", omittingEmptySubsequences: false).map(String.init)
            #expect(fields[8] == String(box.port))
            #expect(fields[9].contains("\"proto=1\"") && fields[9].contains("\"path=/\""))
            #expect(fields[9].contains("\"name=Living room\"") && fields[9].contains("\"id=box-"))
            #expect(try await mdns.browse("_http._tcp").contains { $0.contains("Living room") })

            let discover = try await Shell.run(
                PackCommandTests.binary.path, ["discover", "--timeout", "3"], environment: mdns.environment)
            #expect(discover.contains("Living room\thttp://127.0.0.1:\(box.port)\tversion="))

            // Shut down: withdrawn.
            await box.stop()
            #expect(
                try await poll(for: .seconds(10), every: .milliseconds(200)) {
                    try await mdns.browse("_tripto._tcp").isEmpty ? true : nil
                } == true)
        }
    }

    @Test("listening on loopback only, the box is announced there only; listening everywhere, on the LAN too")
    func announcedWhereReachable() async throws {
        try await MDNSLoopback.running(lan: true) { mdns in
            // BoxProcess listens on 127.0.0.1 unless told otherwise.
            let desk = try BoxProcess(arguments: ["--name", "Desk"], environment: mdns.environment, announce: true)
            let lounge = try BoxProcess(
                arguments: ["--name", "Lounge", "--host", "0.0.0.0"], environment: mdns.environment, announce: true)
            try await desk.start()
            defer { desk.terminate() }
            try await lounge.start()
            defer { lounge.terminate() }

            // Where each was seen, by the address it resolved to (field 8): "=;IF;IPv4;Lounge;_tripto._tcp;
            // local;HOST;10.213.0.1;PORT;…". avahi-browse names the interface by its index in its own
            // namespace, not in the daemon's.
            func addresses(of name: String, _ type: String = "_tripto._tcp") async throws -> Set<String> {
                var found: Set<String> = []
                for line in try await mdns.browse(type) {
                    let fields = line.split(separator: ";", omittingEmptySubsequences: false).map(String.init)
                    if fields.count > 7, fields[3] == name { found.insert(fields[7]) }
                }
                return found
            }
            let both = try await poll(for: .seconds(10), every: .milliseconds(200)) {
                let seen = try await addresses(of: "Lounge")
                return seen == ["127.0.0.1", "10.213.0.1"] ? seen : nil
            }
            #expect(both != nil, "the box listening everywhere is announced on both interfaces")
            // Desk is announced on loopback, and still only there a second later.
            let deskSeen = try await poll(for: .seconds(10), every: .milliseconds(200)) {
                let seen = try await addresses(of: "Desk")
                return seen.isEmpty ? nil : seen
            }
            #expect(deskSeen == ["127.0.0.1"])
            try await Task.sleep(for: .seconds(1))
            #expect(try await addresses(of: "Desk") == ["127.0.0.1"])
            #expect(try await addresses(of: "Desk", "_http._tcp") == ["127.0.0.1"])
        }
    }

    @Test("avahi-daemon restarts: the box is announced again within seconds")
    func daemonRestart() async throws {
        try await MDNSLoopback.running { mdns in
            let box = try BoxProcess(arguments: ["--name", "Restarted"], environment: mdns.environment, announce: true)
            try await box.start()
            defer { box.terminate() }
            #expect(try await Self.announcement(naming: "Restarted", in: mdns) != nil)

            await mdns.stopAvahi()
            try await mdns.startAvahi()
            let start = Date()
            #expect(try await Self.announcement(naming: "Restarted", in: mdns, within: .seconds(15)) != nil)
            #expect(Date().timeIntervalSince(start) < 10)
        }
    }

    @Test("two boxes with the same name are both visible, under distinct names")
    func sameName() async throws {
        try await MDNSLoopback.running { mdns in
            let first = try BoxProcess(arguments: ["--name", "Twin"], environment: mdns.environment, announce: true)
            let second = try BoxProcess(arguments: ["--name", "Twin"], environment: mdns.environment, announce: true)
            try await first.start()
            defer { first.terminate() }
            #expect(try await Self.announcement(naming: "Twin", in: mdns) != nil)
            try await second.start()
            defer { second.terminate() }
            let lines = try #require(
                try await poll(for: .seconds(10), every: .milliseconds(200)) {
                    let lines = try await mdns.browse("_tripto._tcp").filter { $0.contains("Twin") }
                    return lines.count == 2 ? lines : nil
                })
            let names = Set(lines.map { $0.split(separator: ";")[3] })
            // avahi-browse escapes the space (\032) and "#" (\035): "Twin #2".
            #expect(names == ["Twin", "Twin\\032\\0352"])
            let ports = Set(lines.map { $0.split(separator: ";")[8] })
            #expect(ports == [Substring(String(first.port)), Substring(String(second.port))])
            // Each says in its TXT records the name it is found under.
            let said = Set(lines.map { line in line.split(separator: ";")[9].contains("\"name=Twin #2\"") })
            #expect(said == [true, false], "\(lines)")
        }
    }

    @Test("no daemon at all: the box serves games and warns once")
    func noDaemon() async throws {
        let box = try BoxProcess(
            environment: ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/nonexistent/tripto-test-bus"], announce: true)
        try await box.start()
        defer { box.terminate() }
        let http = HTTP(base: box.baseURL)
        #expect(try await http.post("/v1/sessions").status == 201)
        try await Task.sleep(for: .seconds(7))  // two more tries
        #expect(try await http.get("/healthz").status == 200)
        let warnings = box.log.components(separatedBy: "mDNS: Avahi is not available").count - 1
        #expect(warnings == 1, "\(box.log)")
    }
}
