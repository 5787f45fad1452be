import Testing

@testable import Core

/// The codes that travel: each error code's wire name and whether it may be retried, and each of the
/// box's closes with the code and reason docs/protocol.md ("Closing") gives it.
@Suite("Error and close codes")
struct CodesTests {
    @Test("only a rate limit and a failed save are worth trying again as they are")
    func retryable() {
        let retryable = ErrorCode.allCases.filter(\.isRetryable)
        #expect(retryable == [.rateLimited, .storageUnavailable])
        #expect(ErrorPayload(.storageUnavailable, message: "x").retryable)
        #expect(!ErrorPayload(.badMessage, message: "x").retryable)
        #expect(ErrorPayload(.sessionNotFound, message: "x").code == "SESSION_NOT_FOUND")
    }

    @Test("every error code's wire name is its case in capitals")
    func wireNames() {
        for code in ErrorCode.allCases {
            let capitals = String(describing: code).map { $0.isUppercase ? "_\($0)" : $0.uppercased() }.joined()
            #expect(code.rawValue == capitals)
        }
    }

    @Test("each close has the code and reason the protocol's table gives it")
    func closes() {
        let table = SocketClose.allCases.map { "\($0.code) \($0.reason)" }
        #expect(
            table == [
                "1000 SESSION_ENDED", "1001 BOX_SHUTTING_DOWN", "4001 REVOKED", "4001 UNAUTHORIZED",
                "1008 TOO_MANY_CONNECTIONS", "1011 STORAGE_UNAVAILABLE",
            ])
    }
}
