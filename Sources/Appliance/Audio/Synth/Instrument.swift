import Foundation

/// The box's band: each instrument renders one mono note. Every note starts from silence with a short
/// attack and ends at silence with a release, so notes never click wherever they are placed.
enum Instrument {
    private static let rate = Canvas.rate

    private static func frames(_ seconds: Double) -> Int { max(1, Int((seconds * rate).rounded())) }

    /// Ramps the first `attack` seconds up from zero and the last `release` seconds down to zero.
    private static func shape(_ samples: inout [Float], attack: Double, release: Double) {
        let rise = min(samples.count, frames(attack))
        for index in 0..<rise { samples[index] *= Float(index) / Float(rise) }
        let fall = min(samples.count, frames(release))
        let end = samples.count
        for index in 0..<fall { samples[end - 1 - index] *= Float(index) / Float(fall) }
    }

    /// A note `seconds` long: `sample(t)` at each frame's time, then the attack and release.
    private static func note(
        seconds: Double, attack: Double, release: Double, _ sample: (_ t: Double) -> Double
    ) -> [Float] {
        var out = [Float](repeating: 0, count: frames(seconds))
        for index in out.indices { out[index] = Float(sample(Double(index) / rate)) }
        shape(&out, attack: attack, release: release)
        return out
    }

    /// A polyBLEP sawtooth step: a saw without the aliasing a naive ramp has at high notes.
    private static func saw(_ phase: Double, _ step: Double) -> Double {
        var value = 2 * phase - 1
        if phase < step {
            let t = phase / step
            value -= t + t - t * t - 1
        } else if phase > 1 - step {
            let t = (phase - 1) / step
            value -= t * t + t + t + 1
        }
        return value
    }

    // MARK: Pitched

    /// A plucked string: harmonics that die away faster the higher they are.
    static func pluck(_ pitch: Int, seconds: Double, brightness: Double = 1) -> [Float] {
        let f = Double.hertz(pitch)
        let partials = max(1, min(8, Int(12_000 / f)))
        return note(seconds: seconds + 0.08, attack: 0.002, release: 0.08) { t in
            var value = 0.0
            for k in 1...partials {
                let kk = Double(k)
                value += sin(2 * .pi * kk * f * t) * exp(-t * (2.5 + kk * 2.2 / brightness)) / (kk * kk * 0.6 + 0.4)
            }
            return value * 0.6
        }
    }

    /// An electric piano: two-operator FM, bright at the strike and mellowing as it rings.
    static func electricPiano(_ pitch: Int, seconds: Double) -> [Float] {
        let f = Double.hertz(pitch)
        return note(seconds: seconds + 0.3, attack: 0.003, release: 0.3) { t in
            let modulation = (0.25 + 1.6 * exp(-t / 0.18)) * sin(2 * .pi * f * t)
            let tine = 0.12 * exp(-t / 0.05) * sin(2 * .pi * f * 7 * t)
            return (sin(2 * .pi * f * t + modulation) + tine) * exp(-t / 1.4) * 0.5
        }
    }

    /// A glockenspiel bar: the partial ratios of a struck metal bar, each with its own decay.
    static func glockenspiel(_ pitch: Int, seconds: Double) -> [Float] {
        let f = Double.hertz(pitch)
        let modes: [(ratio: Double, level: Double, decay: Double)] = [
            (1, 1, 1.2), (2.756, 0.35, 0.35), (5.404, 0.18, 0.12), (8.933, 0.08, 0.05),
        ]
        return note(seconds: seconds + 0.6, attack: 0.001, release: 0.5) { t in
            var value = 0.0
            for mode in modes where f * mode.ratio < 20_000 {
                value += mode.level * sin(2 * .pi * f * mode.ratio * t) * exp(-t / mode.decay)
            }
            return value * 0.5
        }
    }

    /// A soft whistle-like lead (a nod to the train), with a little breath and a vibrato that
    /// comes in as the note is held.
    static func whistle(_ pitch: Int, seconds: Double, seed: UInt64) -> [Float] {
        let f = Double.hertz(pitch)
        var noise = Noise(seed: seed)
        var breath = Filter(.bandPass, hz: f * 2, q: 2)
        var phase = 0.0
        return note(seconds: seconds + 0.12, attack: 0.03, release: 0.12) { t in
            let depth = 0.006 * min(1, max(0, (t - 0.15) / 0.3))
            phase += f * (1 + depth * sin(2 * .pi * 5.2 * t)) / rate
            phase -= floor(phase)
            let tone = sin(2 * .pi * phase) + 0.22 * sin(4 * .pi * phase) + 0.08 * sin(6 * .pi * phase)
            return (tone + 0.35 * breath.process(noise.next())) * 0.45
        }
    }

    /// A warm pad: three detuned saws through a low-pass filter, slow to rise and fall.
    static func pad(_ pitch: Int, seconds: Double, cutoff: Double = 1_800) -> [Float] {
        let f = Double.hertz(pitch)
        var phases = [0.0, 0.33, 0.66]
        let detune = [1.0, 1.0035, 0.9968]
        var filter = Filter(.lowPass, hz: cutoff, q: 0.6)
        var second = Filter(.lowPass, hz: cutoff * 1.4, q: 0.6)
        return note(seconds: seconds + 0.6, attack: 0.25, release: 0.6) { _ in
            var value = 0.0
            for voice in 0..<3 {
                let step = f * detune[voice] / rate
                value += saw(phases[voice], step)
                phases[voice] += step
                phases[voice] -= floor(phases[voice])
            }
            return second.process(filter.process(value / 3)) * 0.6
        }
    }

    /// A round bass: fundamental and two harmonics, gently saturated.
    static func bass(_ pitch: Int, seconds: Double) -> [Float] {
        let f = Double.hertz(pitch)
        return note(seconds: seconds + 0.06, attack: 0.004, release: 0.06) { t in
            let value =
                sin(2 * .pi * f * t) + 0.45 * sin(4 * .pi * f * t) * exp(-t / 0.2) + 0.2 * sin(6 * .pi * f * t)
                * exp(-t / 0.08)
            return tanh(1.4 * value * (0.55 + 0.45 * exp(-t / 0.5))) * 0.7
        }
    }

    /// A brass section: two detuned saws whose filter opens at the attack, with a late vibrato.
    static func brass(_ pitch: Int, seconds: Double) -> [Float] {
        let f = Double.hertz(pitch)
        var phases = [0.0, 0.5]
        let detune = [0.9977, 1.0023]
        var filter = Filter(.lowPass, hz: 500, q: 0.9)
        var frame = 0
        return note(seconds: seconds + 0.15, attack: 0.025, release: 0.15) { t in
            // The filter follows its opening every 32 frames, not every one.
            defer { frame += 1 }
            if frame % 32 == 0 {
                let opening = t < 0.06 ? 500 + 3_000 * t / 0.06 : 2_200 + 1_300 * exp(-(t - 0.06) / 0.1)
                filter.set(.lowPass, hz: opening, q: 0.9)
            }
            let vibrato = 1 + 0.004 * min(1, max(0, (t - 0.25) / 0.2)) * sin(2 * .pi * 5.5 * t)
            var value = 0.0
            for voice in 0..<2 {
                let step = f * detune[voice] * vibrato / rate
                value += saw(phases[voice], step)
                phases[voice] += step
                phases[voice] -= floor(phases[voice])
            }
            return filter.process(value / 2) * 0.7
        }
    }

    // MARK: Drums

    /// A kick: a sine that falls in pitch, with a soft knock at the start.
    static func kick() -> [Float] {
        var phase = 0.0
        return note(seconds: 0.45, attack: 0.002, release: 0.05) { t in
            phase += (46 + 80 * exp(-t / 0.035)) / rate
            return sin(2 * .pi * phase) * exp(-t / 0.16)
        }
    }

    /// A snare (or, soft, a brush): a band of noise with a short tone under it.
    static func snare(seed: UInt64, soft: Bool = false) -> [Float] {
        var noise = Noise(seed: seed)
        var high = Filter(.highPass, hz: soft ? 2_000 : 1_000)
        var low = Filter(.lowPass, hz: soft ? 7_000 : 9_000)
        return note(seconds: soft ? 0.18 : 0.3, attack: soft ? 0.006 : 0.001, release: 0.03) { t in
            let body = soft ? 0 : 0.5 * sin(2 * .pi * 190 * t) * exp(-t / 0.04)
            let rattle = low.process(high.process(noise.next())) * exp(-t / (soft ? 0.05 : 0.09))
            return body + rattle
        }
    }

    /// A hi-hat: high noise, closed (short) or open.
    static func hat(seed: UInt64, open: Bool = false) -> [Float] {
        var noise = Noise(seed: seed)
        var high = Filter(.highPass, hz: 7_500, q: 0.8)
        var higher = Filter(.highPass, hz: 7_500, q: 0.8)
        return note(seconds: open ? 0.35 : 0.09, attack: 0.001, release: 0.02) { t in
            higher.process(high.process(noise.next())) * exp(-t / (open ? 0.12 : 0.022))
        }
    }

    /// A shaker: the "chug" of a train when played in sixteenths with accents.
    static func shaker(seed: UInt64) -> [Float] {
        var noise = Noise(seed: seed)
        var band = Filter(.bandPass, hz: 9_000, q: 0.7)
        return note(seconds: 0.09, attack: 0.001, release: 0.02) { t in
            let swell = t < 0.012 ? t / 0.012 : exp(-(t - 0.012) / 0.03)
            return band.process(noise.next()) * swell
        }
    }

    /// A clap: three quick bursts of mid noise and a short tail.
    static func clap(seed: UInt64) -> [Float] {
        var noise = Noise(seed: seed)
        var band = Filter(.bandPass, hz: 1_400, q: 1.1)
        return note(seconds: 0.25, attack: 0.001, release: 0.03) { t in
            let burst = t < 0.03 ? exp(-(t.truncatingRemainder(dividingBy: 0.01)) / 0.003) : exp(-(t - 0.03) / 0.06)
            return band.process(noise.next()) * burst * 2
        }
    }

    /// A crash cymbal.
    static func crash(seed: UInt64, seconds: Double = 2.2) -> [Float] {
        var noise = Noise(seed: seed)
        var high = Filter(.highPass, hz: 3_500, q: 0.7)
        var shimmer = Filter(.bandPass, hz: 6_500, q: 1.5)
        // A real cymbal's energy falls away above ~10 kHz; flat noise up there only hisses.
        var top = Filter(.lowPass, hz: 10_000, q: 0.6)
        return note(seconds: seconds, attack: 0.002, release: 0.3) { t in
            let n = high.process(noise.next())
            return top.process(n * 0.7 + shimmer.process(n) * 0.6) * exp(-t / (seconds * 0.3))
        }
    }

    /// A woodblock-like tick: two short resonances. `high` gives the "tick", else the "tock".
    static func tick(high: Bool) -> [Float] {
        let base = high ? 2_100.0 : 1_500.0
        return note(seconds: 0.06, attack: 0.0008, release: 0.01) { t in
            (sin(2 * .pi * base * t) + 0.5 * sin(2 * .pi * base * 2.7 * t) * exp(-t / 0.004)) * exp(-t / 0.012)
        }
    }

    /// A timpani stroke: a low drum with a pitch that settles.
    static func timpani(_ pitch: Int, seconds: Double = 1.6) -> [Float] {
        let f = Double.hertz(pitch)
        var phase = 0.0
        return note(seconds: seconds, attack: 0.003, release: 0.2) { t in
            phase += f * (1 + 0.06 * exp(-t / 0.05)) / rate
            let value = sin(2 * .pi * phase) + 0.3 * sin(2 * .pi * phase * 1.5) * exp(-t / 0.3)
            return value * exp(-t / (seconds * 0.35))
        }
    }
}
