import Foundation
import Testing

/// `tripto-bench --smoke`: a tiny benchmark run against the debug `tripto`, checked for correctness
/// only (every event arrives, in order, and the report is written); timings are not asserted here.
@Suite("benchmark smoke", .timeLimit(.minutes(5)))
struct BenchSmokeTests {
    @Test("3 tables of 4 players and a crowd of 6 play to the end with no event lost")
    func smokeRun() async throws {
        let tripto = PackCommandTests.binary
        let bench = tripto.deletingLastPathComponent().appendingPathComponent("tripto-bench")
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("tripto-bench-smoke-\(UUID())")
        defer { try? FileManager.default.removeItem(at: output) }
        let text = try await Shell.run(
            bench.path,
            [
                "--smoke", "--no-baseline", "--tripto", tripto.path, "--build", "debug", "--packs",
                PackCommandTests.root.appendingPathComponent("packs").path, "--output", output.path,
            ])
        let files = try FileManager.default.contentsOfDirectory(atPath: output.path)
        let json = try #require(files.first { $0.hasSuffix("-3x4-smoke.json") })
        #expect(files.contains { $0.hasSuffix("-3x4-smoke.md") })
        let report = try JSONSerialization.jsonObject(with: Data(contentsOf: output.appendingPathComponent(json)))
        let outcomes = try #require((report as? [String: Any])?["outcomes"] as? [[String: Any]])
        // How busy the machine was before the run, so that a skewed report can be told from a good one.
        let machine = try #require((report as? [String: Any])?["machine"] as? [String: Any])
        let busy = try #require((machine["busyBeforePercent"] as? NSNumber)?.doubleValue)
        #expect((0...100).contains(busy))
        #expect(outcomes.count == 2, "tables and crowd: \(text)")
        for outcome in outcomes {
            #expect(outcome["lost"] as? Int == 0)
            #expect(outcome["outOfOrder"] as? Int == 0)
            #expect((outcome["eventsExpected"] as? Int ?? 0) > 0)
            #expect(outcome["undecodable"] as? Int == 0)
            let scenario = try #require(outcome["scenario"] as? [String: Any])
            #expect(outcome["tablesFinished"] as? Int == scenario["sessions"] as? Int)
            // Every BRAKE_ACCEPTED heard is timed from the pull that won it, and there were some.
            let brakes = (outcome["brake"] as? [String: Any])?["count"] as? Int
            let accepted = ((outcome["fanoutByType"] as? [String: Any])?["BRAKE_ACCEPTED"] as? [String: Any])?["count"]
            #expect((brakes ?? 0) > 0)
            #expect(brakes == accepted as? Int)
            // Each winning pull is timed once more, at the last of its table's seats (all heard it).
            let pulls = (outcome["brakeLastSeat"] as? [String: Any])?["count"] as? Int
            let seats = (scenario["players"] as? Int ?? 0) + 2
            #expect((pulls ?? 0) > 0)
            #expect(brakes == (pulls ?? 0) * seats)
        }
    }
}
