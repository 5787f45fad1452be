import Testing

@testable import Core

/// What the TV needs to be the show: the moments' effects, the banter after the reveal, the journey
/// for its map, and which of the room's sound sources play (docs/protocol.md).
@Suite("The TV's show")
struct TVShowTests {
    private func settings() -> Settings {
        Fixture.settings {
            $0.introMs = 0
            $0.followupsPerDestination = 1
        }
    }

    @Test("a brake flashes and puts its owner in the spotlight, on the room's screen only")
    func brakeMoment() throws {
        var table = try Table(settings: settings())
        try table.start()
        let effects = try table.player(1, .brakePull())
        let room = effects.events(for: .tv)
        let moments = room.compactMap { event -> UIEffectTrigger? in
            if case .uiEffectTrigger(let effect) = event { return effect }
            return nil
        }
        #expect(moments.map(\.effectId) == ["flash", "spotlight"])
        #expect(moments.last?.playerId == table.players[1])
        #expect(moments.allSatisfy { $0.startAtServerMs == table.now })
        #expect(
            !effects.events(for: .player, participant: table.players[0]).contains { $0.type == "UI_EFFECT_TRIGGER" })
    }

    @Test("the reveal pulses, and its banter line follows its line and shows with the destination")
    func revealAndBanter() throws {
        var table = try Table(settings: settings())
        try table.start([Fixture.secretDestination(1), Fixture.secretDestination(2)])
        #expect(table.game.packClip(for: "r1-banter") == nil, "not before the reveal")
        let before = table.game.projection(for: .tv, participant: nil, now: table.now)
        #expect(before.round?.destination == nil && before.journey == [])
        let effects = try table.host(.forceReveal)
        let room = effects.events(for: .tv)
        let clips = room.compactMap { event -> AudioPlay? in
            if case .audioPlay(let play) = event { return play }
            return nil
        }
        #expect(clips.map(\.clipId) == ["r1-reveal", "r1-banter"])
        #expect(clips.map(\.kind) == [.reveal, .banter])
        #expect(room.contains { if case .uiEffectTrigger(let e) = $0 { e.effectId == "pulse" } else { false } })
        #expect(table.game.packClip(for: "r1-banter") == "zdestname1-banter-1")
        let after = table.game.projection(for: .player, participant: table.players[0], now: table.now)
        #expect(after.round?.destination?.banter == "Zbanter1 one.")
        #expect(after.round?.destination?.lat == 10 && after.round?.destination?.lon == 20)
        #expect(after.journey?.map(\.name) == ["Zdestname1"])

        // The second round: the first stop is on the journey, the second not until its reveal, and
        // the banter takes the destination's next line.
        while table.game.round?.index == 0 { try table.host(.next) }
        let second = table.game.projection(for: .tv, participant: nil, now: table.now)
        #expect(second.round?.index == 2)
        #expect(second.journey?.map(\.name) == ["Zdestname1"])
        #expect(second.round?.destination == nil)
        try table.host(.forceReveal)
        let revealed = table.game.projection(for: .tv, participant: nil, now: table.now)
        #expect(revealed.round?.destination?.banter == "Zbanter2 two.")
        #expect(revealed.journey?.map(\.name) == ["Zdestname1", "Zdestname2"])
        #expect(table.game.packClip(for: "r2-banter") == "zdestname2-banter-2")
    }

    @Test("a destination without banter says none")
    func noBanter() throws {
        var table = try Table(settings: settings())
        var plain = Fixture.secretDestination(1)
        plain.banter = nil
        try table.start([plain, Fixture.secretDestination(2)])
        let effects = try table.host(.forceReveal)
        #expect(
            !effects.events(for: .tv).contains { if case .audioPlay(let p) = $0 { p.kind == .banter } else { false } })
        #expect(table.game.projection(for: .tv, participant: nil, now: table.now).round?.destination?.banter == nil)
        #expect(table.game.packClip(for: "r1-banter") == nil)
    }

    @Test("the TV says whether its page plays; the TV, host or captain mute the box; nobody else")
    func soundOutputs() throws {
        var table = try Table(settings: settings())
        let tv = Issuer.participant(table.tv)
        let version = table.game.version
        _ = try table.game.apply(.setSoundOutput(tvPage: true, boxMuted: true), by: tv, now: table.now)
        #expect(table.game.soundOutputs == SoundOutputs(tvPage: true, boxMuted: true))
        #expect(table.game.version == version + 1)
        let sound = table.game.projection(for: .host, participant: table.host, now: table.now).sound
        #expect(sound?.tvPage == true && sound?.boxMuted == true)
        // The same again changes nothing a client sees.
        _ = try table.game.apply(.setSoundOutput(tvPage: true, boxMuted: nil), by: tv, now: table.now)
        #expect(table.game.version == version + 1)
        try table.host(.setSoundOutput(tvPage: nil, boxMuted: false))
        #expect(table.game.soundOutputs == SoundOutputs(tvPage: true, boxMuted: false))
        #expect(throws: GameError.forbidden("Only the TV says whether its page plays the sound")) {
            try table.host(.setSoundOutput(tvPage: false, boxMuted: nil))
        }
        #expect(throws: GameError.forbidden("Only the TV, the host or the captain may mute the box")) {
            try table.player(0, .setSoundOutput(tvPage: nil, boxMuted: true))
        }
        #expect(throws: GameError.invalidPayload("Say tvPage, boxMuted or both")) {
            _ = try table.game.apply(.setSoundOutput(tvPage: nil, boxMuted: nil), by: tv, now: table.now)
        }

        // Quiet only while a connected TV page plays: the page switched off or the TV gone, it plays.
        _ = try table.game.apply(.setSoundOutput(tvPage: nil, boxMuted: true), by: tv, now: table.now)
        #expect(table.game.boxSilenced)
        _ = table.game.setConnected(table.tv, false, now: table.now)
        #expect(!table.game.boxSilenced)
        _ = table.game.setConnected(table.tv, true, now: table.now)
        #expect(table.game.boxSilenced)
        _ = try table.game.apply(.setSoundOutput(tvPage: false, boxMuted: nil), by: tv, now: table.now)
        #expect(!table.game.boxSilenced && table.game.soundOutputs.boxMuted)

        var captained = try Table(settings: settings(), captained: true)
        try captained.player(0, .setSoundOutput(tvPage: nil, boxMuted: true))
        #expect(captained.game.soundOutputs.boxMuted)
        #expect(throws: GameError.self) { try captained.player(1, .setSoundOutput(tvPage: nil, boxMuted: false)) }
    }

    @Test("a game that plays itself holds the reveal until its line and the banter are said")
    func revealHeldForTheVoice() throws {
        func revealMs(revealText: String, banter: String, pacing: Pacing = Pacing()) throws -> Int64? {
            var destination = Fixture.secretDestination(1)
            destination.revealText = revealText
            destination.banter = [banter]
            var table = try Table(
                settings: Fixture.settings {
                    $0.introMs = 0; $0.autoAdvance = true
                }, pacing: pacing)
            try table.start([destination])
            try table.host(.forceReveal)
            return table.game.timers.first { $0.purpose == .reveal }?.durationMs
        }
        let line = String(repeating: "a", count: 150)
        let banter = String(repeating: "b", count: 100)
        // (150 + 100 + 30) characters at 70 ms.
        #expect(try revealMs(revealText: line, banter: banter) == 19_600)
        // Short lines: the pace's own 8 s; scaled by --auto-pace, both ways.
        #expect(try revealMs(revealText: "Here.", banter: "Yes.") == 8_000)
        #expect(try revealMs(revealText: line, banter: banter, pacing: Pacing().scaled(by: 0.5)) == 9_800)
        // A session saved before voices were timed keeps its fixed reveal.
        var old = Pacing()
        old.voiceMsPerCharacter = nil
        #expect(try revealMs(revealText: line, banter: banter, pacing: old) == 8_000)
    }

    @Test("the projection carries the bed under way and the host's level, for a TV that switches on mid-game")
    func musicInProjection() throws {
        var table = try Table(settings: settings())
        try table.start()
        try table.host(.setMusicGain(gainDb: -20))
        let sound = try #require(table.game.projection(for: .tv, participant: nil, now: table.now).sound)
        #expect(sound.musicTrackId == "travel")
        #expect(sound.musicStartAtServerMs == table.now)
        #expect(sound.musicGainDb == -20)
    }

    @Test("the finale's bed keeps its time after the fanfare, through a pause, for a TV or box that joins in")
    func finaleBedTime() throws {
        var table = try Table(
            settings: Fixture.settings {
                $0.introMs = 0; $0.followupsPerDestination = 0; $0.finaleMs = 11_000
            })
        try table.start([Fixture.secretDestination(1)])
        try table.host(.forceReveal)
        try table.host(.next)
        try table.host(.next)
        #expect(table.game.phase == .finalResults)
        let finaleAt = table.now
        func sound() throws -> Projection.Sound {
            try #require(table.game.projection(for: .tv, participant: nil, now: table.now).sound)
        }
        #expect(try sound().musicTrackId == "finale")
        #expect(try sound().musicStartAtServerMs == finaleAt + Game.finaleBedDelayMs)
        // Paused 2 s into it for 10 s: the bed comes in 3.5 s after the resume.
        table.advance(2_000)
        try table.host(.pause)
        table.advance(10_000)
        try table.host(.resume)
        #expect(try sound().musicStartAtServerMs == table.now + Game.finaleBedDelayMs - 2_000)
        try table.host(.next)
        try table.host(.restart)
        #expect(try sound().musicTrackId == nil && sound().musicStartAtServerMs == nil)
    }
}
