import Foundation
import Testing

/// The runtime optimisations are on by default and each is turned off by `TRIPTO_DISABLE`, which
/// is how docs/performance.md says to re-measure them.
@Suite("TRIPTO_DISABLE", .timeLimit(.minutes(5)))
struct DisableSwitchTests {
    @Test("by default the box's tasks run on its event loops, with the compilers that takeover was checked with")
    func onByDefault() async throws {
        let box = try BoxProcess(arguments: ["--log-level", "debug"])
        try await box.start()
        defer { box.terminate() }
        #if compiler(>=6.2) && compiler(<6.4)
            #expect(box.log.contains("tasks run on the event loops"), "\(box.log)")
        #else
            #expect(box.log.contains("not checked with this compiler's runtime"), "\(box.log)")
        #endif
        #expect(try await HTTP(base: box.baseURL).post("/v1/sessions").status == 201)
    }

    @Test("loop-executor and fd-table off: the runtime's pool runs the tasks, the open-file limit is left as it was")
    func switchedOff() async throws {
        let box = try BoxProcess(
            arguments: ["--log-level", "info"], environment: ["TRIPTO_DISABLE": "short-slice,loop-executor,fd-table"],
            openFiles: 256)
        try await box.start()
        defer { box.terminate() }
        #expect(box.log.contains("tasks run on the runtime's thread pool (TRIPTO_DISABLE=loop-executor)"), "\(box.log)")
        #expect(box.log.contains("optimisations off (TRIPTO_DISABLE): short-slice, loop-executor, fd-table"))
        #expect(box.log.contains("TRIPTO_DISABLE=fd-table leaves the limit the box was started with"))
        let pid = try #require(box.process?.processIdentifier)
        let limits = try String(contentsOfFile: "/proc/\(pid)/limits", encoding: .utf8)
        let line = try #require(limits.split(separator: "\n").first { $0.hasPrefix("Max open files") })
        #expect(line.split(whereSeparator: \.isWhitespace)[3] == "256")
        // A game is played all the same.
        #expect(try await HTTP(base: box.baseURL).post("/v1/sessions").status == 201)
    }
}
