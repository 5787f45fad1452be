import Foundation
import Testing

@testable import Appliance

@Suite("Secrets", .timeLimit(.minutes(5)))
struct SecretsTests {
    @Test("a token's stored hash is its SHA-256 in lowercase hex")
    func hashIsHexSHA256() {
        #expect(Secrets.hash("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(Secrets.hash("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    @Test("base64url: RFC 4648's vectors, and Foundation's base64 with its URL-safe digits for every length")
    func base64URL() {
        let vectors = [
            "": "", "f": "Zg", "fo": "Zm8", "foo": "Zm9v", "foob": "Zm9vYg", "fooba": "Zm9vYmE", "foobar": "Zm9vYmFy",
        ]
        for (plain, encoded) in vectors { #expect(Secrets.base64URL(Array(plain.utf8)) == encoded, "\(plain)") }
        var generator = SystemRandomNumberGenerator()
        for length in 0..<40 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let expected = Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            #expect(Secrets.base64URL(bytes) == expected, "\(bytes)")
        }
        #expect(Secrets.base64URL([0xFB, 0xFF, 0xBF]) == "-_-_")
    }

    @Test("tokens and session ids have their length and alphabet, and do not repeat")
    func tokensAndIds() {
        let urlSafe = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        let tokens = (0..<200).map { _ in Secrets.token() }
        #expect(tokens.allSatisfy { $0.count == 32 && $0.allSatisfy(urlSafe.contains) })
        #expect(Set(tokens).count == tokens.count)
        #expect(Secrets.token(bytes: 6).count == 8)
        #expect(Secrets.participantId().count == 14)
        let base32 = Set("abcdefghijklmnopqrstuvwxyz234567")
        let ids = (0..<200).map { _ in Secrets.sessionId() }
        #expect(ids.allSatisfy { $0.count == 16 && $0.allSatisfy(base32.contains) })
        #expect(Set(ids).count == ids.count)
        // Every letter of the alphabet turns up: the bytes are spread over all 32.
        #expect(Set(ids.joined()) == base32)
    }
}
