import Core
import Foundation
import Testing

/// `tripto doctor` against a real box: what works is ✓, what does not is ✗ with its fix, and the
/// exit status is 1 exactly when a line needs attention.
@Suite("tripto doctor", .timeLimit(.minutes(5)))
struct DoctorTests {
    /// What the doctor printed, and whether it exited with 0.
    private func doctor(_ arguments: [String]) async throws -> (text: String, allWell: Bool) {
        let command = [PackCommandTests.binary.path, "doctor"] + arguments
        do {
            return (try await Shell.run(command[0], Array(command.dropFirst())), true)
        } catch HarnessError.unexpected(let text) {
            return (text, false)
        }
    }

    @Test(
        "a running box, its sound device, database and disk are ✓; a missing device and a damaged database are ✗ with a fix"
    )
    func checks() async throws {
        let box = try BoxProcess()
        try await box.start()
        defer { box.terminate() }
        _ = try await HTTP(base: box.baseURL).post("/v1/sessions")
        let common = ["--port", "\(box.port)", "--data-dir", box.dataDirectory.path, "--packs", box.packsDirectory]

        let well = try await doctor(common + ["--audio-device", "null", "--tone"])
        #expect(well.text.contains("✓ The box: version"), "\(well.text)")
        #expect(well.text.contains("✓ Sound: the device null opens and played a tone"))
        #expect(well.text.contains("✓ Database: \(box.databasePath) is intact"))
        #expect(well.text.contains("✓ Disk: "))
        let shipped = try FileManager.default.contentsOfDirectory(atPath: box.packsDirectory).filter {
            FileManager.default.fileExists(atPath: "\(box.packsDirectory)/\($0)/pack.json")
        }
        let destinations = try shipped.map {
            let pack = try JSONDecoder().decode(
                Pack.self, from: Data(contentsOf: URL(fileURLWithPath: "\(box.packsDirectory)/\($0)/pack.json")))
            return pack.destinations.count
        }
        #expect(
            well.text.contains("Packs: \(shipped.count) pack(s), \(destinations.reduce(0, +)) destinations"),
            "\(well.text)")
        #expect(well.allWell == !well.text.contains("✗"), "\(well.text)")

        let noSound = try await doctor(common + ["--audio-device", "hw:42,0"])
        #expect(noSound.text.contains("✗ Sound: cannot open hw:42,0"), "\(noSound.text)")
        #expect(noSound.text.contains("fix: switch the TV or speaker on"))
        #expect(!noSound.allWell)

        let damaged = FileManager.default.temporaryDirectory.appendingPathComponent("tripto-doctor-\(UUID())")
        try FileManager.default.createDirectory(at: damaged, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: damaged) }
        try Data(repeating: 0x41, count: 8192).write(to: damaged.appendingPathComponent("tripto.sqlite"))
        let broken = try await doctor(["--port", "1", "--data-dir", damaged.path, "--audio-device", "null"])
        #expect(broken.text.contains("✗ The box: nothing that answers as a Tripto box on port 1"), "\(broken.text)")
        #expect(broken.text.contains("✗ Database: "), "\(broken.text)")
        #expect(!broken.allWell)
    }
}
