import Testing

@testable import Core

@Suite("Voice script")
struct VoiceScriptTests {
    @Test("one line per clip the game can play, named as packClip names them")
    func lines() throws {
        let pack = try Fixture.miniPack()
        let lines = VoiceScript.lines(for: pack)
        let destination = pack.destinations[0]
        #expect(lines.map(\.clip).first == "intro")
        let banter = pack.destinations.reduce(0) { $0 + ($1.banter?.count ?? 0) }
        #expect(lines.count == 1 + pack.destinations.count * (5 + 1) + destination.followups.count + banter)
        #expect(lines.contains { $0.clip == "\(destination.id)-clue-10" && $0.text.hasPrefix("For 10 points. ") })
        #expect(lines.contains { $0.clip == "\(destination.id)-reveal" && $0.text == destination.revealText })
        let withOptions = try #require(destination.followups.firstIndex { $0.options != nil })
        let options = try #require(destination.followups[withOptions].options)
        let spoken = try #require(lines.first { $0.clip == "\(destination.id)-followup-\(withOptions + 1)" })
        #expect(spoken.text.hasSuffix(" or \(options[options.count - 1])?"))
        #expect(Set(lines.map(\.clip)).count == lines.count)
        for (index, line) in (destination.banter ?? []).enumerated() {
            #expect(lines.contains { $0.clip == "\(destination.id)-banter-\(index + 1)" && $0.text == line })
        }
    }
}
