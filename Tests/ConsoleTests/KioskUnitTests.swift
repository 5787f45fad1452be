import Foundation
import Testing

/// The text kiosk's systemd unit, as `make install` writes it, passes `systemd-analyze verify`.
@Suite("tripto-console-tv.service", .timeLimit(.minutes(5)))
struct KioskUnitTests {
    @Test("the unit verifies with the paths filled in and runs the console's kiosk on tty1")
    func verify() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("console-unit-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let lib = root.appendingPathComponent("prefix/lib/tripto")
        try FileManager.default.createDirectory(at: lib, withIntermediateDirectories: true)
        for name in ["tripto", "tripto-console"] {
            try FileManager.default.createSymbolicLink(
                at: lib.appendingPathComponent(name),
                withDestinationURL: LiveBox.buildFolder.appendingPathComponent(name))
        }
        let units = root.appendingPathComponent("units")
        let script = LiveBox.repository.appendingPathComponent("scripts/install").path
        _ = try Command.run("/usr/bin/env", ["PREFIX=\(root.path)/prefix", "/bin/bash", script, "units", units.path])
        let unit = try String(contentsOf: units.appendingPathComponent("tripto-console-tv.service"), encoding: .utf8)
        #expect(unit.contains("\nExecStart=\(root.path)/prefix/lib/tripto/tripto-console kiosk --url "))
        #expect(unit.contains("\nTTYPath=/dev/tty1\n"))
        let output = try Command.run(
            "/usr/bin/systemd-analyze",
            ["verify"] + ["tripto.service", "tripto-console-tv.service"].map { units.appendingPathComponent($0).path })
        #expect(output.isEmpty, "\(output)")
    }
}
