import Foundation

/// The box's mix, on a clock of sample frames: a music bed (looping), the voice and the effects.
/// Music fades in and out and is ducked while the voice speaks; every gain change is a ramp, so
/// nothing the mixer does can click. Pure and single-threaded: the speaker's audio thread drives it.
struct Mixer {
    enum Cue: Sendable {
        /// MUSIC_SET: the bed fades in; a bed already playing fades out under it.
        case music(Sound, gainDb: Double)
        /// MUSIC_STOP: also calls off a bed scheduled before it to start after it.
        case stopMusic(fadeMs: Int)
        /// MUSIC_GAIN_SET: the host's music level.
        case musicGain(Double)
        /// AUDIO_PLAY: a new line replaces one still being spoken, and calls off lines scheduled to
        /// start at or after it.
        case voice(Sound)
        /// AUDIO_STOP: the line and any effect still sounding fade out (a pause is silent: a
        /// finale's drumroll does not run on through it), and the lines and effects scheduled
        /// before it to start after it are called off (the finale's fanfare after a restart).
        case stopVoice
        /// The line being spoken ends (its successor's clip is missing); nothing ahead is called off.
        case endLine
        /// SFX_PLAY: effects overlap freely.
        case effect(Sound)
    }

    struct Levels {
        /// How far the music drops while the voice speaks.
        var duckDb = -12.0
        var duckAttackMs = 60.0
        var duckReleaseMs = 450.0
        /// The voice counts as speaking this long after its clip ends, so the music does not swell
        /// back between two lines that follow each other.
        var voiceHangoverMs = 250.0
        var musicFadeInMs = 500
        var crossfadeMs = 600
        var effectsDb = -2.0
        /// Any host level at or below this is "off".
        var musicOffDb = -59.0
    }

    static let rate = Double(Sound.rate)

    let levels: Levels
    /// The next frame to be rendered.
    private(set) var frame: Int64 = 0
    private var pending: [(at: Int64, order: Int, cue: Cue)] = []
    private var order = 0
    private var beds: [Playing] = []
    private var voices: [Playing] = []
    private var effects: [Playing] = []
    private var voiceUntil: Int64 = -1
    private var musicGain: Double
    private var musicGainTarget: Double
    private var duck = 1.0
    private let duckFloor: Double
    private let attackStep: Double
    private let releaseStep: Double
    private let gainStep: Double
    private let effectsGain: Float

    init(levels: Levels = Levels(), musicGainDb: Double = -8) {
        self.levels = levels
        musicGain = Self.linear(musicGainDb, off: levels.musicOffDb)
        musicGainTarget = musicGain
        duckFloor = pow(10, levels.duckDb / 20)
        attackStep = 1 - exp(-1 / (levels.duckAttackMs / 1000 * Self.rate))
        releaseStep = 1 - exp(-1 / (levels.duckReleaseMs / 1000 * Self.rate))
        gainStep = 1 - exp(-1 / (0.05 * Self.rate))
        effectsGain = Float(pow(10, levels.effectsDb / 20))
    }

    static func frames(ms: Double) -> Int64 { Int64((ms * rate / 1000).rounded()) }

    private static func linear(_ db: Double, off: Double) -> Double { db <= off ? 0 : pow(10, db / 20) }

    /// Whether anything is sounding or waiting to.
    var isIdle: Bool { pending.isEmpty && beds.isEmpty && voices.isEmpty && effects.isEmpty }

    /// Plays `cue` from frame `at`; a cue for a frame already rendered plays from the next one.
    mutating func schedule(_ cue: Cue, at: Int64) {
        let at = max(at, frame)
        // What was due at the stop's own frame or before (sent in the same moment, just before it)
        // still plays; only what was to start after it is called off.
        switch cue {
        case .stopMusic:
            pending.removeAll {
                guard $0.at > at, case .music = $0.cue else { return false }
                return true
            }
        case .stopVoice:
            pending.removeAll {
                guard $0.at > at else { return false }
                switch $0.cue {
                case .voice, .effect: return true
                case .music, .stopMusic, .musicGain, .stopVoice, .endLine: return false
                }
            }
        case .voice:
            // A line calls off the lines still waiting to start at or after it (the banter after a
            // reveal's line, when the game moved on before it came): they belong to a screen gone.
            pending.removeAll {
                guard $0.at >= at, case .voice = $0.cue else { return false }
                return true
            }
        case .music, .musicGain, .effect, .endLine:
            break
        }
        order += 1
        pending.append((at, order, cue))
        pending.sort { ($0.at, $0.order) < ($1.at, $1.order) }
    }

    /// Renders the next `count` frames as interleaved stereo into `out` (resized to fit).
    mutating func render(_ count: Int, into out: inout [Float]) {
        if out.count != count * 2 { out = [Float](repeating: 0, count: count * 2) }
        for index in out.indices { out[index] = 0 }
        var done = 0
        while done < count {
            while let next = pending.first, next.at <= frame {
                pending.removeFirst()
                apply(next.cue)
            }
            let until = pending.first.map { Int(min(Int64(count - done), $0.at - frame)) } ?? count - done
            mix(from: done, count: until, into: &out)
            done += until
            frame += Int64(until)
        }
    }

    private mutating func apply(_ cue: Cue) {
        switch cue {
        case .music(let sound, let gainDb):
            for index in beds.indices { beds[index].fade(to: 0, frames: Self.frames(ms: Double(levels.crossfadeMs))) }
            var bed = Playing(sound: sound, level: 0)
            bed.fade(to: 1, frames: Self.frames(ms: Double(levels.musicFadeInMs)))
            beds.append(bed)
            musicGainTarget = Self.linear(gainDb, off: levels.musicOffDb)
        case .stopMusic(let fadeMs):
            for index in beds.indices { beds[index].fade(to: 0, frames: max(1, Self.frames(ms: Double(fadeMs)))) }
        case .musicGain(let db):
            musicGainTarget = Self.linear(db, off: levels.musicOffDb)
        case .voice(let sound):
            stopVoices()
            voices.append(Playing(sound: sound, level: 1))
            voiceUntil = frame + Int64(sound.frames) + Self.frames(ms: levels.voiceHangoverMs)
        case .stopVoice:
            stopVoices()
            voiceUntil = frame
            for index in effects.indices { effects[index].fade(to: 0, frames: Self.frames(ms: 30)) }
        case .endLine:
            stopVoices()
            voiceUntil = frame
        case .effect(let sound):
            effects.append(Playing(sound: sound, level: 1))
        }
    }

    private mutating func stopVoices() {
        for index in voices.indices { voices[index].fade(to: 0, frames: Self.frames(ms: 30)) }
    }

    private mutating func mix(from start: Int, count: Int, into out: inout [Float]) {
        guard count > 0 else { return }
        let speaking = frame < voiceUntil
        out.withUnsafeMutableBufferPointer { out in
            // Music: the bed's fade, the host's level and the duck, each a per-frame ramp.
            var gain = musicGain
            var duck = self.duck
            let target = speaking ? duckFloor : 1
            let step = speaking ? attackStep : releaseStep
            var musicGains = [Float](repeating: 0, count: count)
            for index in 0..<count {
                gain += (musicGainTarget - gain) * gainStep
                duck += (target - duck) * step
                musicGains[index] = Float(gain * duck)
            }
            musicGain = gain
            self.duck = duck
            for index in beds.indices { beds[index].add(into: out, from: start, count: count, gains: musicGains) }
            for index in voices.indices { voices[index].add(into: out, from: start, count: count, gains: nil) }
            for index in effects.indices {
                effects[index].add(into: out, from: start, count: count, gains: nil, scale: effectsGain)
            }
        }
        beds.removeAll(where: \.isFinished)
        voices.removeAll(where: \.isFinished)
        effects.removeAll(where: \.isFinished)
    }
}

/// One sound being played: where it is, and its fade.
private struct Playing {
    let sound: Sound
    var position = 0
    var level: Double
    private var fadeFrom = 0.0
    private var fadeTo = 0.0
    private var fadeLength: Int64 = 0
    private var fadeDone: Int64 = 0

    init(sound: Sound, level: Double) {
        self.sound = sound
        self.level = level
    }

    var isFinished: Bool {
        (!sound.loops && position >= sound.frames) || (fadeLength > 0 && fadeDone >= fadeLength && fadeTo == 0)
    }

    /// Moves the level to `to` along a raised-cosine curve over `frames`.
    mutating func fade(to target: Double, frames: Int64) {
        fadeFrom = level
        fadeTo = target
        fadeLength = max(1, frames)
        fadeDone = 0
    }

    mutating func add(
        into out: UnsafeMutableBufferPointer<Float>, from start: Int, count: Int, gains: [Float]?, scale: Float = 1
    ) {
        let total = sound.frames
        guard total > 0 else { return }
        sound.samples.withUnsafeBufferPointer { samples in
            for index in 0..<count {
                if position >= total {
                    guard sound.loops else { return }
                    position = 0
                }
                if fadeDone < fadeLength {
                    fadeDone += 1
                    let progress = Double(fadeDone) / Double(fadeLength)
                    level = fadeFrom + (fadeTo - fadeFrom) * (1 - cos(.pi * progress)) / 2
                } else if fadeLength > 0, fadeTo == 0 {
                    return
                }
                let gain = Float(level) * scale * (gains?[index] ?? 1)
                out[2 * (start + index)] += samples[2 * position] * gain
                out[2 * (start + index) + 1] += samples[2 * position + 1] * gain
                position += 1
            }
        }
    }
}
