import Testing

/// One box for a whole suite: started before the suite's first test and stopped, by PID, after its
/// last, for suites whose tests each make sessions of their own and need no fresh process. The
/// suite's tests read it as `SharedBox.current`.
struct SharedBox: SuiteTrait, TestScoping {
    let arguments: [String]

    @TaskLocal static var current: BoxProcess?

    var isRecursive: Bool { false }

    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        let box = try BoxProcess(arguments: arguments)
        try await box.start()
        do {
            try await Self.$current.withValue(box) { try await function() }
        } catch {
            await box.stop()
            throw error
        }
        await box.stop()
    }
}

extension Trait where Self == SharedBox {
    /// A box started with `arguments` for the whole suite (`SharedBox.current`).
    static func sharedBox(_ arguments: [String] = []) -> Self { SharedBox(arguments: arguments) }
}
