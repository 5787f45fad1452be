import Testing

@testable import Core

@Suite("Voice clips")
struct AudioClipTests {
    private func clipIds(_ effects: [Effect]) -> [String] {
        effects.compactMap { effect in
            if case .send(.audioPlay(let play), _) = effect { return play.clipId }
            return nil
        }
    }

    @Test("clips are named by their place in the game, not by the destination")
    func wireNames() throws {
        var table = try Table(
            settings: Fixture.settings {
                $0.introMs = 0; $0.followupsPerDestination = 1
            })
        var played = clipIds(
            try table.host(.start(destinations: [Fixture.secretDestination(1), Fixture.secretDestination(2)])))
        played += clipIds(try table.host(.nextClue))
        played += clipIds(try table.host(.forceReveal))
        played += clipIds(try table.host(.next))
        #expect(played == ["intro", "r1-clue-10", "r1-clue-8", "r1-reveal", "r1-banter", "r1-followup-1"])
        #expect(!played.contains { $0.contains("zdestname") })
    }

    @Test("a clip can be fetched only once it has been played")
    func onlyWhatWasHeard() throws {
        var table = try Table(
            settings: Fixture.settings {
                $0.introMs = 0; $0.followupsPerDestination = 1
            })
        #expect(table.game.packClip(for: "r1-clue-10") == nil, "nothing before the game")
        try table.start()
        #expect(table.game.packClip(for: "intro") == "intro")
        #expect(table.game.packClip(for: "r1-clue-10") == "zdestname1-clue-10")
        #expect(table.game.packClip(for: "r1-clue-8") == nil)
        #expect(table.game.packClip(for: "r1-reveal") == nil)
        #expect(table.game.packClip(for: "r1-followup-1") == nil)
        #expect(table.game.packClip(for: "r2-clue-10") == nil)
        try table.host(.nextClue)
        #expect(table.game.packClip(for: "r1-clue-8") == "zdestname1-clue-8")
        try table.host(.forceReveal)
        #expect(table.game.packClip(for: "r1-clue-2") == "zdestname1-clue-2", "after the reveal every clue is known")
        #expect(table.game.packClip(for: "r1-reveal") == "zdestname1-reveal")
        try table.host(.next)
        #expect(table.game.packClip(for: "r1-followup-1") == "zdestname1-followup-1")
        #expect(table.game.packClip(for: "r1-followup-2") == nil)
        for bad in [
            "", "r", "r0-clue-10", "r9-clue-10", "r1-clue-7", "r1-clue", "x1-clue-10", "r1-reveal-1", "r-1-reveal",
            "r1-followup-4",
        ] {
            #expect(table.game.packClip(for: bad) == nil, "\(bad)")
        }
    }

    @Test("after a restart the version continues above anything sent before")
    func resumedVersion() throws {
        var table = try Table()
        let before = table.game.version
        table.game.resumeVersion(boot: 3)
        #expect(table.game.version == (3 << 32) + before)
        #expect(table.game.version > before)
    }
}
