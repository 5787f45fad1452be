import Foundation
import Testing

@testable import Appliance

/// Where `StreamingJSONEncoder` records a member's value: only an outermost member, whatever its
/// value, first or last, and nothing when there is none. The box cuts shared texts at these places.
@Suite("encoder offsets")
struct EncoderLocatingTests {
    struct Inner: Encodable {
        var you: Int? = 5
    }

    /// Writes `you` even when it is nil, as `Projection` does.
    struct Outer: Encodable {
        var inner = Inner()
        var list = [Inner()]
        var you: Int?
        var last = "end"

        enum CodingKeys: CodingKey { case inner, list, you, last }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(inner, forKey: .inner)
            try container.encode(list, forKey: .list)
            try container.encode(you, forKey: .you)
            try container.encode(last, forKey: .last)
        }
    }

    struct LastMember: Encodable {
        var first = 1
        var you = ["a": [1, 2]]
    }

    private func located(_ value: some Encodable, _ key: String, after prefix: String = "") throws -> String? {
        let (bytes, range) = try StreamingJSONEncoder.encode(value, after: prefix, locating: key)
        return range.map { String(decoding: bytes[$0], as: UTF8.self) }
    }

    @Test("a nested member of the same name is passed over; a null value is found")
    func outermostOnly() throws {
        #expect(try located(Outer(), "you") == "null")
        #expect(try located(Outer(you: 7), "you") == "7")
        #expect(try located(Outer(), "inner") == #"{"you":5}"#)
        #expect(try located(Outer(), "list") == #"[{"you":5}]"#)
    }

    @Test("the last member ends where its object closes; after a prefix the offsets count it")
    func lastMember() throws {
        #expect(try located(LastMember(), "you") == #"{"a":[1,2]}"#)
        let (bytes, range) = try StreamingJSONEncoder.encode(LastMember(), after: "head:", locating: "first")
        #expect(String(decoding: bytes, as: UTF8.self) == #"head:{"first":1,"you":{"a":[1,2]}}"#)
        #expect(range == 14..<15)
    }

    @Test("a member that is not there is not found, and a fragment goes in as written")
    func absentAndFragments() throws {
        #expect(try located(LastMember(), "nope") == nil)
        #expect(try located(Inner(), "you") == "5")
        let fragments = [JSONFragment(text: #"{"op":"remove","path":"/x"}"#)]
        #expect(try StreamingJSONEncoder.encode(fragments) == Array(#"[{"op":"remove","path":"/x"}]"#.utf8))
        #expect(throws: EncodingError.self) { try JSONEncoder().encode(fragments) }
    }
}
