import Foundation
import Testing

/// The systemd units `make install` writes pass `systemd-analyze verify` with the paths filled in.
@Suite("systemd units", .timeLimit(.minutes(5)))
struct SystemdUnitTests {
    @Test("tripto.service and tripto-screen.service verify, and the service is hardened")
    func verify() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("tripto-units-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let prefix = root.appendingPathComponent("prefix")
        let lib = prefix.appendingPathComponent("lib/tripto")
        try FileManager.default.createDirectory(at: lib, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            at: lib.appendingPathComponent("tripto"), withDestinationURL: PackCommandTests.binary)
        let units = root.appendingPathComponent("units")

        let render = try Shell.run(
            "/bin/bash",
            [BoxProcess.repositoryRoot.appendingPathComponent("scripts/install").path, "units", units.path],
            environment: ["PREFIX": prefix.path])
        #expect(render.isEmpty)
        let service = try String(contentsOf: units.appendingPathComponent("tripto.service"), encoding: .utf8)
        #expect(service.contains("ExecStart=\(prefix.path)/lib/tripto/tripto serve"))
        for setting in [
            "Restart=always", "DynamicUser=yes", "StateDirectory=tripto", "SupplementaryGroups=audio",
            "ProtectSystem=strict", "ProtectHome=yes", "NoNewPrivileges=yes", "PrivateTmp=yes",
        ] {
            #expect(service.contains("\n\(setting)\n"), "\(setting)")
        }
        let output = try Shell.run(
            "/usr/bin/systemd-analyze",
            [
                "verify", units.appendingPathComponent("tripto.service").path,
                units.appendingPathComponent("tripto-screen.service").path,
            ])
        #expect(output.isEmpty, "\(output)")
    }
}
