import Core
import Foundation
import Testing

@testable import Appliance

/// A scripted game played by the real box through real ALSA, into a WAV file (ALSA's file plugin,
/// set up by an asoundrc of the test's own), and the recording checked by analysis.
@Suite("sound on the box", .serialized, .timeLimit(.minutes(5)))
struct AudioOutputTests {
    static let rate = Double(Sound.rate)

    /// A folder with an ALSA configuration whose default device writes to `out.wav` beside it.
    static func fileOutput() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tripto-alsa-\(UUID().uuidString)")
        let alsa = folder.appendingPathComponent("xdg/alsa")
        try FileManager.default.createDirectory(at: alsa, withIntermediateDirectories: true)
        let recording = folder.appendingPathComponent("out.wav").path
        try """
        pcm.!default { type plug; slave { pcm "tofile"; format S16_LE; rate 48000; channels 2 } }
        pcm.tofile { type file; slave.pcm "null"; file "\(recording)"; format "wav" }
        """.write(to: alsa.appendingPathComponent("asoundrc"), atomically: true, encoding: .utf8)
        return folder
    }

    /// The mini test pack (one destination) with its voice clips rendered by espeak-ng.
    static func voicedPack(in folder: URL) async throws -> URL {
        let packs = folder.appendingPathComponent("packs")
        let pack = packs.appendingPathComponent("test-mini")
        try FileManager.default.createDirectory(at: pack, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: PackCommandTests.root.appendingPathComponent("Tests/CoreTests/Fixtures/mini.json"),
            to: pack.appendingPathComponent("pack.json"))
        let rendered = try await PackCommandTests.run(["pack", "render-voice", pack.path])
        guard rendered.status == 0 else { throw HarnessError.unexpected("render-voice: \(rendered.output)") }
        return packs
    }

    static func waitForLog(_ box: BoxProcess, _ text: String, timeout: TimeInterval = 90) async throws -> String {
        let line = try await poll(for: .seconds(timeout), every: .milliseconds(100)) {
            box.log.split(separator: "\n").first { $0.contains(text) }.map(String.init)
        }
        guard let line else { throw HarnessError.timeout("the box never logged \"\(text)\"; log:\n\(box.log)") }
        return line
    }

    /// What the box was told to play, in server time, as the TV heard it.
    struct Cue {
        var type: String
        var id: String
        var at: Int64
        var durationMs: Int64?
        var serverTimeMs: Int64
    }

    static func cues(_ texts: [String]) -> [Cue] {
        texts.compactMap { text in
            guard let message = try? JSONDecoder().decode(ServerMessage.self, from: Data(text.utf8)) else { return nil }
            switch message.event {
            case .musicSet(let set):
                return Cue(
                    type: "MUSIC_SET", id: set.trackId, at: set.startAtServerMs, serverTimeMs: message.serverTimeMs)
            case .musicStop(let stop):
                return Cue(
                    type: "MUSIC_STOP", id: "\(stop.fadeOutMs)", at: message.serverTimeMs,
                    serverTimeMs: message.serverTimeMs)
            case .audioPlay(let play):
                return Cue(
                    type: "AUDIO_PLAY", id: play.clipId, at: play.startAtServerMs, durationMs: play.durationMs,
                    serverTimeMs: message.serverTimeMs)
            case .sfxPlay(let sfx):
                return Cue(type: "SFX_PLAY", id: sfx.sfxId, at: sfx.startAtServerMs, serverTimeMs: message.serverTimeMs)
            default:
                return nil
            }
        }
    }

    @Test("a whole game through ALSA: voice over ducked music, seamless loops, fades to silence, the finale's effects")
    func scriptedGame() async throws {
        let folder = try Self.fileOutput()
        defer { try? FileManager.default.removeItem(at: folder) }
        let packs = try await Self.voicedPack(in: folder)
        let box = try BoxProcess(
            packs: packs.path,
            arguments: ["--log-level", "info", "--sounds-cache", folder.appendingPathComponent("sounds").path],
            environment: ["XDG_CONFIG_HOME": folder.appendingPathComponent("xdg").path], audio: true)
        try await box.start()
        defer { box.terminate() }
        // The first start composes the beds (several seconds in a debug build), then opens the output.
        let opened = try await Self.waitForLog(box, "sound output open")
        let epoch = try #require(
            opened.firstMatch(of: /audio.epochServerMs=(\d+)/).flatMap { Int64($0.1) }, "no epoch in: \(opened)")
        #expect(opened.contains("audio.paced=false"))

        let table = try await LiveTable.open(
            box,
            settings: ["destinationsCount": 1, "followupsPerDestination": 1, "followupSeconds": 5, "introMs": 2_000],
            players: ["Anna", "Björn"])
        let tv = try #require(table.tv)
        table.host.send(.hostStartGame)
        try await table.allSee(.clueLevel, level: 10, timeout: .seconds(15))
        // Clue 10 is read; then a pause long enough for the music to come back up.
        func heard(_ clip: String) async throws -> Int64 {
            let cue = Self.cues(await tv.allTexts()).first { $0.type == "AUDIO_PLAY" && $0.id == clip }
            return try #require(cue?.durationMs, "no AUDIO_PLAY \(clip) with a duration")
        }
        try await Task.sleep(for: .milliseconds(try await heard("r1-clue-10") + 3_000))
        table.host.send(.hostNextClue)
        try await table.allSee(.clueLevel, level: 8)
        try await Task.sleep(for: .milliseconds(try await heard("r1-clue-8") + 3_000))
        try await table.brakeAndAnswer(0, "Gothenburg")
        try await tv.expect("BRAKE_ANSWER_LOCKED")
        // The journey goes on past the travel bed's loop point (31 s) before the reveal.
        let started = try #require(Self.cues(await tv.allTexts()).first { $0.type == "MUSIC_SET" }).at
        let loopMs = Int64(TravelBed.tempo.frames(bars: 16) * 1000 / Sound.rate)
        try await Task.sleep(for: .milliseconds(max(1_500, started + loopMs + 2_000 - ServerClock.now())))
        table.host.send(.hostForceReveal)
        try await table.allSee(.revealDestination)
        try await Task.sleep(for: .milliseconds(2_500))
        table.host.send(.hostNext)
        try await table.allSee(.followupQuestion)
        table.players[1].socket.send(.followupAnswerSubmit(.init(index: 1, answerText: "Liseberg")))
        try await tv.expect("FOLLOWUP_RESULTS", timeout: .seconds(10))
        table.host.send(.hostNext)
        try await table.allSee(.scoreboard)
        try await Task.sleep(for: .milliseconds(1_000))
        table.host.send(.hostNext)
        try await tv.expect("FINAL_RESULTS_PRESENT")
        try await Task.sleep(for: .milliseconds(8_000))
        table.host.send(.hostEndSession)
        try await tv.expect("SESSION_ENDED")
        try await Task.sleep(for: .milliseconds(2_000))
        let cues = Self.cues(await tv.allTexts())
        await box.stop()

        let (fileRate, channels) = try WAVFile.samples(of: folder.appendingPathComponent("out.wav"))
        #expect(fileRate == Sound.rate && channels.count == 2)
        let left = channels[0]
        func frame(_ serverMs: Int64) -> Int { Int((serverMs - epoch) * Int64(Sound.rate) / 1000) }
        func cue(_ type: String, _ id: String) throws -> Cue {
            try #require(cues.first { $0.type == type && $0.id == id }, "no \(type) \(id) in \(cues.map(\.id))")
        }
        let recorded = Double(left.count) / Self.rate
        #expect(recorded > 30, "only \(recorded) s recorded")

        // 1. The voice is there when a clue is read: the clip itself is found in the mix, on time.
        let clip8 = try WAVFile.read(packs.appendingPathComponent("test-mini/voice/gothenburg-clue-8.wav"))
        let read8 = try cue("AUDIO_PLAY", "r1-clue-8")
        let found = SignalAnalysis.locate(clip8, in: left, near: frame(read8.at), searchMs: 150)
        #expect(found.correlation > 0.8, "clue 8 correlates \(found.correlation) with the recording")
        #expect(abs(found.offsetMs) <= 120, "clue 8 heard \(found.offsetMs) ms off its startAtServerMs")

        // 2. Ducking, measured above 14 kHz where the voice has nothing (espeak-ng speaks at 22.05 kHz,
        //    so the box's resampler passes nothing above 11 kHz): what is there is the music's hi-hat.
        let high = SignalAnalysis.highPassed(left, hz: 14_000)
        let voiceStart = frame(read8.at) + found.offsetFrames
        let voiceEnd = voiceStart + clip8.frames
        let second = Int(Self.rate)
        let before = SignalAnalysis.rmsDb(high, voiceStart - 2 * second, voiceStart - second / 5)
        let during = SignalAnalysis.rmsDb(high, voiceStart + second / 3, voiceEnd - second / 10)
        let after = SignalAnalysis.rmsDb(high, voiceEnd + second * 3 / 2, voiceEnd + second * 5 / 2)
        #expect(before - during >= 9, "music ducked by \(before - during) dB (before \(before), during \(during))")
        #expect(after - during >= 9, "music back by only \(after - during) dB")
        #expect(abs(after - before) < 3, "music came back at \(after - before) dB of its level before")

        // 3. No clicks where the mixer changes something: the fade-in, the loop points, the fades out.
        let travel = try cue("MUSIC_SET", "travel")
        let loopFrames = TravelBed.tempo.frames(bars: 16)
        let reveal = try cue("SFX_PLAY", "reveal_sting")
        var seams = [("travel fade-in", frame(travel.at))]
        var loop = frame(travel.at) + loopFrames
        while loop < frame(reveal.at) {
            seams.append(("travel loop point", loop))
            loop += loopFrames
        }
        let stops = cues.filter { $0.type == "MUSIC_STOP" }
        #expect(!stops.isEmpty)
        for stop in stops {
            seams.append(("MUSIC_STOP start", frame(stop.at)))
            seams.append(("MUSIC_STOP end", frame(stop.at) + Int(stop.id)! * Int(Sound.rate) / 1000))
        }
        #expect(seams.contains { $0.0 == "travel loop point" }, "the game did not reach a loop point")
        for (name, at) in seams {
            let (jump, around) = SignalAnalysis.jumps(in: channels, at: at)
            #expect(jump <= max(0.02, 1.5 * around), "\(name): step \(jump) against \(around) around it")
        }

        // 4. The finale: the drumroll from 0.8 s and the fanfare from 3.2 s, as composed.
        let library = SoundLibrary.compose()
        var finaleHeard: [String] = []
        for id in ["drumroll", "winner_fanfare"] {
            let sfx = try cue("SFX_PLAY", id)
            let sound = try #require(library[id: id])
            let match = SignalAnalysis.locate(sound, in: left, near: frame(sfx.at), searchMs: 150)
            // The finale bed plays under both, so the match is never perfect (0.67–0.9 seen, varying
            // with where in the bed they fall); by chance two seconds of unrelated sound correlate
            // around 0.01, so 0.5 at the right moment is unmistakable.
            #expect(match.correlation > 0.5, "\(id) correlates \(match.correlation)")
            #expect(abs(match.offsetMs) <= 120, "\(id) heard \(match.offsetMs) ms off")
            finaleHeard.append(String(format: "%@ %.2f at %+d ms", id, match.correlation, match.offsetMs))
        }
        let finale = try cue("MUSIC_SET", "finale")
        #expect(SignalAnalysis.rmsDb(left, frame(finale.at) + second, frame(finale.at) + 2 * second) > -45)

        // 5. Silence after the last MUSIC_STOP's fade (the session ended).
        let last = try #require(stops.last)
        let faded = frame(last.at) + Int(last.id)! * Int(Sound.rate) / 1000 + second / 5
        let quiet = SignalAnalysis.rmsDb(left, faded, min(left.count, faded + second))
        #expect(quiet < -70, "after the fade: \(quiet) dBFS")
        print(
            String(
                format:
                    "audio: %.1f s recorded; clue 8 correlation %.2f at %+d ms; music above 14 kHz %.1f / %.1f / %.1f dB "
                    + "(before / during / after the voice); %d seams checked; after the last fade %.0f dBFS; %@",
                recorded, found.correlation, found.offsetMs, before, during, after, seams.count, quiet,
                finaleHeard.joined(separator: ", ")))
    }

    @Test("quiet while the TV page plays (muted), the box goes silent; when the TV goes, its music comes back")
    func mutedForTheTv() async throws {
        let folder = try Self.fileOutput()
        defer { try? FileManager.default.removeItem(at: folder) }
        let box = try BoxProcess(
            arguments: ["--log-level", "info", "--sounds-cache", folder.appendingPathComponent("sounds").path],
            environment: ["XDG_CONFIG_HOME": folder.appendingPathComponent("xdg").path], audio: true)
        try await box.start()
        defer { box.terminate() }
        let opened = try await Self.waitForLog(box, "sound output open")
        let epoch = try #require(opened.firstMatch(of: /audio.epochServerMs=(\d+)/).flatMap { Int64($0.1) })
        let table = try await LiveTable.open(box, settings: ["introMs": 0], players: ["Anna"])
        let tv = try #require(table.tv)
        table.host.send(.hostStartGame)
        try await table.allSee(.clueLevel, level: 10)
        try await Task.sleep(for: .seconds(3))
        let mutedAt = ServerClock.now()
        tv.send(.soundOutputSet(.init(tvPage: true, boxMuted: true)))
        try await Task.sleep(for: .seconds(3))
        #expect(try await table.host.latestSnapshot().sound?.boxMuted == true)
        // The TV's page goes away (its connection closes): the room must not stay silent.
        let goneAt = ServerClock.now()
        tv.close()
        try await Task.sleep(for: .seconds(3))
        await box.stop()

        let (_, channels) = try WAVFile.samples(of: folder.appendingPathComponent("out.wav"))
        let left = channels[0]
        let second = Int(Sound.rate)
        func frame(_ serverMs: Int64) -> Int { Int((serverMs - epoch) * Int64(Sound.rate) / 1000) }
        let playing = SignalAnalysis.rmsDb(left, frame(mutedAt) - 2 * second, frame(mutedAt) - second / 5)
        let muted = SignalAnalysis.rmsDb(left, frame(mutedAt) + second, frame(goneAt) - second / 5)
        let back = SignalAnalysis.rmsDb(left, frame(goneAt) + second, min(left.count, frame(goneAt) + 2 * second))
        #expect(playing > -45, "before: \(playing) dBFS")
        #expect(muted < -70, "muted: \(muted) dBFS")
        #expect(back > -45, "after the TV went: \(back) dBFS")
        print(
            String(
                format: "audio: box quiet for the TV %.0f dBFS, before %.1f, after the TV went %.1f", muted, playing,
                back))
        table.closeAll()
    }

    @Test("with no usable sound device the box warns once and serves the game")
    func noDevice() async throws {
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("tripto-noalsa-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: empty) }
        let box = try BoxProcess(
            arguments: ["--audio-device", "hw:99", "--sounds-cache", empty.appendingPathComponent("sounds").path],
            audio: true)
        try await box.start()
        defer { box.terminate() }
        let table = try await LiveTable.open(box, settings: ["introMs": 0], players: ["Anna"])
        table.host.send(.hostStartGame)
        try await table.allSee(.clueLevel, level: 10)
        try await table.brakeAndAnswer(0, "Somewhere")
        try await table.host.expect("BRAKE_ANSWER_LOCKED")
        // Longer than the retry period: retries stay quiet.
        try await Task.sleep(for: .seconds(6))
        table.host.send(.hostNextClue)
        try await table.allSee(.clueLevel, level: 8)
        let warnings = box.log.split(separator: "\n").filter { $0.contains("no sound output") }
        #expect(warnings.count == 1, "\(box.log)")
        #expect(warnings.first?.contains("hw:99") == true)
        // Nothing was composed for a box that cannot play.
        #expect(!FileManager.default.fileExists(atPath: empty.appendingPathComponent("sounds").path))
        table.closeAll()
    }
}

/// Measurements on a recording (left channel unless said otherwise).
enum SignalAnalysis {
    static func rmsDb(_ samples: [Float], _ from: Int, _ to: Int) -> Double {
        let from = max(0, from)
        let to = min(samples.count, to)
        guard to > from else { return -200 }
        var sum = 0.0
        for index in from..<to { sum += Double(samples[index]) * Double(samples[index]) }
        return 10 * log10(max(sum / Double(to - from), 1e-20))
    }

    /// An eighth-order high-pass.
    static func highPassed(_ samples: [Float], hz: Double) -> [Float] {
        var out = samples
        for _ in 0..<4 {
            var section = Filter(.highPass, hz: hz)
            section.run(&out)
        }
        return out
    }

    /// The largest sample-to-sample step within 3 ms of `at` (both channels), and the largest in the
    /// 300 ms around that (leaving out 20 ms each side): a click is a step far above its surroundings.
    static func jumps(in channels: [[Float]], at: Int) -> (jump: Float, around: Float) {
        var jump: Float = 0
        var around: Float = 0
        let near = 144
        let gap = 960
        let reach = 14_400
        for channel in channels {
            for index in max(1, at - reach)..<min(channel.count, at + reach) {
                let step = abs(channel[index] - channel[index - 1])
                let distance = abs(index - at)
                if distance <= near { jump = max(jump, step) } else if distance >= gap { around = max(around, step) }
            }
        }
        return (jump, around)
    }

    /// Where `sound` (its left channel) best matches the recording within `searchMs` of `near`, by
    /// normalised correlation on 8:1 decimated copies (speech and effects carry their shape below 3 kHz).
    static func locate(
        _ sound: Sound, in recording: [Float], near: Int, searchMs: Int
    ) -> (
        correlation: Double, offsetFrames: Int, offsetMs: Int
    ) {
        let factor = 8
        func decimate(_ samples: [Float], from: Int, count: Int) -> [Double] {
            (0..<count).map { index in
                var sum = 0.0
                for k in 0..<factor {
                    let at = from + index * factor + k
                    if at >= 0 && at < samples.count { sum += Double(samples[at]) }
                }
                return sum
            }
        }
        let left = stride(from: 0, to: sound.samples.count, by: 2).map { sound.samples[$0] }
        // The first two seconds: long enough to be unmistakable, short enough not to run into the next cue.
        let length = min(left.count, 2 * Sound.rate) / factor
        let template = decimate(left, from: 0, count: length)
        let search = searchMs * Sound.rate / 1000 / factor
        let window = decimate(recording, from: near - search * factor, count: length + 2 * search)
        let templateEnergy = template.reduce(0) { $0 + $1 * $1 }
        var best = (correlation: -1.0, lag: 0)
        for lag in 0...(2 * search) {
            var dot = 0.0
            var energy = 0.0
            for index in 0..<length {
                let value = window[lag + index]
                dot += value * template[index]
                energy += value * value
            }
            let correlation = dot / max(1e-12, (templateEnergy * energy).squareRoot())
            if correlation > best.correlation { best = (correlation, lag) }
        }
        let offset = (best.lag - search) * factor
        return (best.correlation, offset, offset * 1000 / Sound.rate)
    }
}
