import Foundation

/// The box's sound effects, each composed from the same instruments as the music beds.
enum Effects {
    /// The emergency brake: a clunk, a burst of air and the squeal of steel on steel.
    static func brake() -> Sound {
        var canvas = Canvas(seconds: 1.5, wraps: false)
        canvas.add(Instrument.timpani(31, seconds: 0.6), at: 0, gain: 0.8)
        canvas.add(Instrument.kick(), at: 0, gain: 0.6)
        var noise = Noise(seed: 800)
        var air = Filter(.highPass, hz: 1_800)
        var hiss = [Float](repeating: 0, count: Int(0.7 * Canvas.rate))
        for index in hiss.indices {
            let t = Double(index) / Canvas.rate
            hiss[index] = Float(air.process(noise.next()) * min(1, t / 0.01) * exp(-t / 0.18))
        }
        canvas.add(hiss, at: 0, gain: 0.5, pan: -0.2)
        var squeal = [Float](repeating: 0, count: Int(1.35 * Canvas.rate))
        var phase = 0.0
        // The steel's second mode, a fifth above: its own phase, so it stays a pure partial.
        var upper = 0.0
        var grit = Filter(.bandPass, hz: 2_600, q: 8)
        for index in squeal.indices {
            let t = Double(index) / Canvas.rate
            let pitch = 2_350 + 300 * exp(-t / 0.5) + 25 * sin(2 * .pi * 7 * t)
            phase += pitch / Canvas.rate
            phase -= floor(phase)
            upper += pitch * 1.5 / Canvas.rate
            upper -= floor(upper)
            let tone = sin(2 * .pi * phase) + 0.3 * sin(2 * .pi * upper) + 0.6 * grit.process(noise.next())
            let swell = min(1, t / 0.06) * (t < 0.9 ? 1 : exp(-(t - 0.9) / 0.15))
            squeal[index] = Float(tone * swell)
        }
        canvas.add(squeal, at: Int(0.03 * Canvas.rate), gain: 0.28, pan: 0.2)
        return canvas.sound(loops: false)
    }

    /// An answer is locked in: two bright bars, low then high.
    static func lockIn() -> Sound {
        var canvas = Canvas(seconds: 1.0, wraps: false)
        canvas.add(Instrument.glockenspiel(83, seconds: 0.1), at: 0, gain: 0.7, pan: -0.1)
        canvas.add(Instrument.glockenspiel(88, seconds: 0.3), at: Int(0.085 * Canvas.rate), gain: 0.8, pan: 0.1)
        canvas.add(Instrument.pluck(76, seconds: 0.25), at: Int(0.085 * Canvas.rate), gain: 0.3)
        return canvas.sound(loops: false)
    }

    /// The destination is revealed: a quick run up the D major chord into a brass hit and a cymbal.
    static func revealSting() -> Sound {
        var canvas = Canvas(seconds: 2.6, wraps: false)
        for (step, pitch) in [62, 66, 69, 74, 78].enumerated() {
            canvas.add(
                Instrument.pluck(pitch, seconds: 0.3, brightness: 1.5), at: Int(Double(step) * 0.055 * Canvas.rate),
                gain: 0.5, pan: -0.4 + 0.2 * Double(step))
        }
        let hit = Int(0.3 * Canvas.rate)
        for pitch in [62, 66, 69, 74] {
            canvas.add(Instrument.brass(pitch, seconds: 0.9), at: hit, gain: 0.3)
        }
        canvas.add(Instrument.timpani(38), at: hit, gain: 0.7)
        canvas.add(Instrument.crash(seed: 810, seconds: 2), at: hit, gain: 0.4, pan: 0.2)
        canvas.add(Instrument.glockenspiel(86, seconds: 0.5), at: hit, gain: 0.35)
        return canvas.sound(loops: false)
    }

    /// The finale's first moment ("And the winner is…"): a rising sweep of noise and tone.
    static func stingBuild() -> Sound {
        let seconds = 0.9
        var out = [Float](repeating: 0, count: Int(seconds * Canvas.rate))
        var noise = Noise(seed: 820)
        var band = Filter(.bandPass, hz: 300, q: 1.2)
        var phase = 0.0
        for index in out.indices {
            let t = Double(index) / Canvas.rate
            let progress = t / seconds
            if index % 32 == 0 { band.set(.bandPass, hz: 300 * pow(20, progress), q: 1.2) }
            phase += 220 * pow(4, progress) / Canvas.rate
            phase -= floor(phase)
            let level = pow(progress, 1.5)
            out[index] = Float((band.process(noise.next()) * 1.2 + 0.4 * sin(2 * .pi * phase)) * level)
        }
        var canvas = Canvas(seconds: seconds + 0.05, wraps: false)
        canvas.add(out, at: 0, gain: 1)
        return canvas.sound(loops: false)
    }

    /// A snare roll that grows for 2.4 s, from the drumroll cue to the winner's fanfare.
    static func drumroll() -> Sound {
        var canvas = Canvas(seconds: 2.7, wraps: false)
        let strokes = (0..<6).map { Instrument.snare(seed: 830 + UInt64($0)) }
        let length = 2.4
        var time = 0.0
        var stroke = 0
        var wobble = Noise(seed: 840)
        while time < length {
            let progress = time / length
            canvas.add(
                strokes[stroke % strokes.count], at: Int(time * Canvas.rate),
                gain: (0.25 + 0.75 * progress * progress) * (0.85 + 0.15 * wobble.next()),
                pan: stroke % 2 == 0 ? -0.15 : 0.15)
            stroke += 1
            time += 1 / 22.0
        }
        for beat in 0..<8 {
            canvas.add(
                Instrument.timpani(33, seconds: 0.5), at: Int(Double(beat) * 0.3 * Canvas.rate),
                gain: 0.15 + 0.05 * Double(beat))
        }
        return canvas.sound(loops: false)
    }

    /// The winner: ta-ta-ta-taaa on the brass, a C major chord with cymbal, timpani and sparkles.
    static func winnerFanfare() -> Sound {
        var canvas = Canvas(seconds: 3.4, wraps: false)
        func at(_ seconds: Double) -> Int { Int(seconds * Canvas.rate) }
        for (index, start) in [0.0, 0.16, 0.32].enumerated() {
            canvas.add(Instrument.brass(67, seconds: 0.11), at: at(start), gain: 0.45, pan: -0.1)
            canvas.add(Instrument.brass(64, seconds: 0.11), at: at(start), gain: 0.25, pan: 0.1)
            if index == 0 { canvas.add(Instrument.timpani(36, seconds: 0.6), at: at(start), gain: 0.5) }
        }
        let chord = 0.48
        for (voice, pitch) in [60, 64, 67, 72, 76].enumerated() {
            canvas.add(
                Instrument.brass(pitch, seconds: 1.9), at: at(chord), gain: 0.24, pan: -0.3 + 0.15 * Double(voice))
        }
        canvas.add(Instrument.timpani(36, seconds: 1.8), at: at(chord), gain: 0.9)
        canvas.add(Instrument.crash(seed: 850, seconds: 2.6), at: at(chord), gain: 0.45)
        for (step, pitch) in [84, 88, 91, 96].enumerated() {
            canvas.add(
                Instrument.glockenspiel(pitch, seconds: 0.3), at: at(chord + 0.12 + 0.09 * Double(step)), gain: 0.3,
                pan: 0.3)
        }
        return canvas.sound(loops: false)
    }
}
