import Foundation
import Testing

@testable import Appliance

/// The mix on its own clock, with test tones whose every sample is known: any click, a missing duck
/// or a fade that does not end in silence shows up exactly.
@Suite("mixer", .timeLimit(.minutes(5)))
struct MixerTests {
    static let rate = Double(Sound.rate)

    /// A stereo sine of `hz` at `amplitude`, `seconds` long; a whole number of cycles so it loops cleanly.
    static func tone(_ hz: Double, seconds: Double, amplitude: Float = 0.5, loops: Bool = false) -> Sound {
        let frames = Int(seconds * rate)
        var samples = [Float](repeating: 0, count: frames * 2)
        for index in 0..<frames {
            let value = amplitude * Float(sin(2 * .pi * hz * Double(index) / rate))
            samples[2 * index] = value
            samples[2 * index + 1] = value
        }
        return Sound(interleaved: samples, loops: loops)
    }

    static func silence(seconds: Double) -> Sound {
        Sound(interleaved: [Float](repeating: 0, count: Int(seconds * rate) * 2))
    }

    /// Renders `seconds` and returns the left channel.
    static func render(_ mixer: inout Mixer, seconds: Double) -> [Float] {
        var left: [Float] = []
        var block: [Float] = []
        for _ in 0..<Int(seconds * rate / 480) {
            mixer.render(480, into: &block)
            for index in stride(from: 0, to: block.count, by: 2) { left.append(block[index]) }
        }
        return left
    }

    static func rmsDb(_ samples: ArraySlice<Float>) -> Double {
        let sum = samples.reduce(0.0) { $0 + Double($1) * Double($1) }
        return 10 * log10(max(sum / Double(max(1, samples.count)), 1e-20))
    }

    static func window(_ samples: [Float], _ from: Double, _ to: Double) -> ArraySlice<Float> {
        samples[Int(from * rate)..<Int(to * rate)]
    }

    static func maxJump(_ samples: [Float]) -> Float {
        zip(samples.dropFirst(), samples).reduce(0) { max($0, abs($1.0 - $1.1)) }
    }

    @Test("music is ducked while the voice speaks and comes back after, without a click")
    func ducking() {
        var mixer = Mixer(musicGainDb: 0)
        // A loop of exactly 200 Hz: 0.5 s holds 100 whole cycles.
        mixer.schedule(.music(Self.tone(200, seconds: 0.5, loops: true), gainDb: 0), at: 0)
        // A silent "voice", so what is measured is the music alone.
        mixer.schedule(.voice(Self.silence(seconds: 2)), at: Mixer.frames(ms: 2_000))
        let left = Self.render(&mixer, seconds: 6)
        let before = Self.rmsDb(Self.window(left, 1.0, 2.0))
        let during = Self.rmsDb(Self.window(left, 2.5, 4.0))
        let after = Self.rmsDb(Self.window(left, 5.2, 6.0))
        #expect(before - during >= 9, "ducked by only \(before - during) dB")
        #expect(before - during <= 15)
        #expect(abs(after - before) < 0.5, "music came back at \(after - before) dB")
        // The steepest step of a 200 Hz sine at 0.5 is 2π·200/48000·0.5 ≈ 0.013; a click would be far larger,
        // at the fade-in, the loop points, the duck and the release alike.
        #expect(Self.maxJump(left) < 0.014)
    }

    @Test("MUSIC_STOP fades out over its time and leaves silence; a new bed crossfades")
    func fades() {
        var mixer = Mixer(musicGainDb: 0)
        mixer.schedule(.music(Self.tone(200, seconds: 0.5, loops: true), gainDb: 0), at: 0)
        mixer.schedule(.music(Self.tone(300, seconds: 0.5, loops: true), gainDb: 0), at: Mixer.frames(ms: 1_000))
        mixer.schedule(.stopMusic(fadeMs: 600), at: Mixer.frames(ms: 2_500))
        let left = Self.render(&mixer, seconds: 4)
        #expect(Self.rmsDb(Self.window(left, 0.6, 1.0)) > -12)
        #expect(Self.rmsDb(Self.window(left, 1.8, 2.5)) > -12)
        // Halfway through the fade the music is still sounding, after it nothing is.
        #expect(Self.rmsDb(Self.window(left, 2.7, 2.8)) > -20)
        #expect(left[Int(3.11 * Self.rate)...].allSatisfy { $0 == 0 })
        #expect(Self.maxJump(left) < 0.03)
        #expect(mixer.isIdle)
    }

    @Test("the host's music level: Off is silence, changes glide")
    func musicGain() {
        var mixer = Mixer(musicGainDb: 0)
        mixer.schedule(.music(Self.tone(200, seconds: 0.5, loops: true), gainDb: 0), at: 0)
        mixer.schedule(.musicGain(-18), at: Mixer.frames(ms: 1_000))
        mixer.schedule(.musicGain(-60), at: Mixer.frames(ms: 2_000))
        let left = Self.render(&mixer, seconds: 3)
        let full = Self.rmsDb(Self.window(left, 0.6, 1.0))
        let low = Self.rmsDb(Self.window(left, 1.5, 2.0))
        #expect(abs(full - low - 18) < 0.5)
        #expect(Self.rmsDb(Self.window(left, 2.6, 3.0)) < -100)
        #expect(Self.maxJump(left) < 0.014)
    }

    @Test("effects overlap, a new line replaces the one being spoken, AUDIO_STOP silences the voice")
    func voiceAndEffects() {
        var mixer = Mixer(musicGainDb: 0)
        mixer.schedule(.voice(Self.tone(500, seconds: 2)), at: 0)
        mixer.schedule(.voice(Self.tone(500, seconds: 0.5, amplitude: 0.25)), at: Mixer.frames(ms: 500))
        mixer.schedule(.effect(Self.tone(1_000, seconds: 0.3)), at: Mixer.frames(ms: 1_200))
        mixer.schedule(.effect(Self.tone(1_000, seconds: 0.3)), at: Mixer.frames(ms: 1_300))
        mixer.schedule(.voice(Self.tone(500, seconds: 2)), at: Mixer.frames(ms: 2_000))
        mixer.schedule(.stopVoice, at: Mixer.frames(ms: 2_500))
        let left = Self.render(&mixer, seconds: 3)
        // The second line is quieter: the first stopped under it.
        #expect(Self.rmsDb(Self.window(left, 0.6, 0.9)) < Self.rmsDb(Self.window(left, 0.1, 0.4)) - 5)
        #expect(Self.rmsDb(Self.window(left, 1.05, 1.15)) < -100)
        #expect(Self.rmsDb(Self.window(left, 1.32, 1.48)) > Self.rmsDb(Self.window(left, 1.22, 1.28)) + 2)
        #expect(left[Int(2.55 * Self.rate)...].allSatisfy { $0 == 0 })
    }

    @Test("a line calls off the lines sent before it that were to start later: a banter the game left behind")
    func lineCallsOffLaterLines() {
        var mixer = Mixer(musicGainDb: 0)
        // The reveal's line now and its banter at 1 s; then the host moves on at 0.3 s: the
        // followup's line (quieter) takes over, and the banter never comes.
        mixer.schedule(.voice(Self.tone(500, seconds: 0.8)), at: 0)
        mixer.schedule(.voice(Self.tone(700, seconds: 0.5)), at: Mixer.frames(ms: 1_000))
        mixer.schedule(.voice(Self.tone(500, seconds: 0.4, amplitude: 0.1)), at: Mixer.frames(ms: 300))
        let left = Self.render(&mixer, seconds: 2)
        #expect(Self.rmsDb(Self.window(left, 0.05, 0.25)) > -12)
        #expect(Self.rmsDb(Self.window(left, 0.4, 0.6)) < -20)
        #expect(Self.rmsDb(Self.window(left, 0.75, 2)) < -100)
        // A line scheduled after one still to come leaves it be (the banter after the reveal's line).
        var both = Mixer(musicGainDb: 0)
        both.schedule(.voice(Self.tone(500, seconds: 0.3)), at: 0)
        both.schedule(.voice(Self.tone(700, seconds: 0.3)), at: Mixer.frames(ms: 500))
        let played = Self.render(&both, seconds: 1)
        #expect(Self.rmsDb(Self.window(played, 0.55, 0.75)) > -12)
    }

    @Test("AUDIO_STOP also fades out an effect still sounding (a pause during the drumroll); a missing line does not")
    func stopSilencesEffects() {
        var mixer = Mixer(musicGainDb: 0)
        mixer.schedule(.effect(Self.tone(1_000, seconds: 2)), at: 0)
        mixer.schedule(.endLine, at: Mixer.frames(ms: 300))
        mixer.schedule(.stopVoice, at: Mixer.frames(ms: 600))
        // Sent with the stop, for the same moment: the brake's own sound after AUDIO_STOP.
        mixer.schedule(.effect(Self.tone(1_000, seconds: 0.2)), at: Mixer.frames(ms: 600))
        let left = Self.render(&mixer, seconds: 1.2)
        #expect(Self.rmsDb(Self.window(left, 0.35, 0.55)) > -12)
        #expect(Self.rmsDb(Self.window(left, 0.65, 0.75)) > -12)
        #expect(Self.rmsDb(Self.window(left, 0.85, 1.2)) < -100)
        #expect(Self.maxJump(left) < 0.2)
    }

    @Test("cues for a moment already played start at once; cues in the future wait for their frame")
    func scheduling() {
        var mixer = Mixer(musicGainDb: 0)
        _ = Self.render(&mixer, seconds: 0.5)
        mixer.schedule(.effect(Self.tone(1_000, seconds: 0.1)), at: 0)
        mixer.schedule(.effect(Self.tone(1_000, seconds: 0.1)), at: Mixer.frames(ms: 800))
        let left = Self.render(&mixer, seconds: 0.5)
        // A 0.5 sine is -9 dBFS; effects play 2 dB under the voice.
        #expect(Self.rmsDb(Self.window(left, 0, 0.1)) > -12)
        #expect(Self.rmsDb(Self.window(left, 0.15, 0.3)) < -100)
        #expect(Self.rmsDb(Self.window(left, 0.3, 0.4)) > -12)
    }

    @Test("a stop calls off what was scheduled before it and has not started: the finale cut short")
    func stopsCallOffPendingCues() {
        var mixer = Mixer(musicGainDb: 0)
        // The finale's timeline: a fanfare at 0.5 s, its bed from 1 s; a restart at 0.2 s stops both.
        mixer.schedule(.effect(Self.tone(1_000, seconds: 0.3)), at: Mixer.frames(ms: 500))
        mixer.schedule(.music(Self.tone(200, seconds: 0.5, loops: true), gainDb: 0), at: Mixer.frames(ms: 1_000))
        _ = Self.render(&mixer, seconds: 0.2)
        mixer.schedule(.stopMusic(fadeMs: 300), at: Mixer.frames(ms: 200))
        mixer.schedule(.stopVoice, at: Mixer.frames(ms: 200))
        // A line whose clip is missing ends the one before, and calls off nothing ahead.
        mixer.schedule(.effect(Self.tone(1_000, seconds: 0.1)), at: Mixer.frames(ms: 1_000))
        mixer.schedule(.endLine, at: Mixer.frames(ms: 200))
        // What comes after the stop plays: the next game's bed.
        mixer.schedule(.music(Self.tone(200, seconds: 0.5, loops: true), gainDb: 0), at: Mixer.frames(ms: 1_500))
        let left = Self.render(&mixer, seconds: 2)
        // Rendered from 0.2 s on: no fanfare (0.5 s) and no bed (1 s); the effect at 1 s plays
        // (0.8–0.9 s here), and the next bed from 1.5 s (1.3 s here, faded in after 0.5 s).
        #expect(Self.rmsDb(Self.window(left, 0, 0.78)) < -100)
        #expect(Self.rmsDb(Self.window(left, 0.8, 0.9)) > -15)
        #expect(Self.rmsDb(Self.window(left, 0.92, 1.28)) < -100)
        #expect(Self.rmsDb(Self.window(left, 1.8, 2.0)) > -15)
    }
}
