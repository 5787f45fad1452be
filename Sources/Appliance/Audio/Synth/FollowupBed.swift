/// "Klockan tickar" — the followup loop while players answer: A minor at 100 bpm, 8 bars (19.2 s).
/// A clock ticks on every beat over a heartbeat kick, a plucked ostinato and a dark pad; the second
/// half adds a high held line to lift the tension.
enum FollowupBed {
    static let tempo = Tempo(bpm: 100)

    private static let chords: [(root: Int, voicing: [Int])] = [
        (45, [57, 60, 64]), (41, [57, 60, 65]), (38, [57, 62, 65]), (40, [56, 59, 64]),  // Am F Dm E
        (45, [57, 60, 64]), (41, [57, 60, 65]), (38, [57, 62, 65]), (40, [56, 59, 62, 64]),  // Am F Dm E7
    ]

    /// The high line of the second half, one note a bar.
    private static let line = [76, 77, 74, 80]

    static func compose() -> Sound {
        let bars = chords.count
        var canvas = Canvas(frames: tempo.frames(bars: bars), wraps: true)
        let beat = tempo.secondsPerBeat
        let kick = Instrument.kick()
        let ticks = [Instrument.tick(high: true), Instrument.tick(high: false)]
        let hats = (0..<4).map { Instrument.hat(seed: 400 + UInt64($0)) }
        var cache = NoteCache()
        for bar in 0..<bars {
            let chord = chords[bar]
            for step in 0..<4 {
                canvas.add(
                    ticks[step % 2], at: tempo.frame(bar: bar, beat: Double(step)), gain: 0.3,
                    pan: step % 2 == 0 ? 0.4 : -0.4)
            }
            for step in 0..<16 {
                canvas.add(
                    hats[step % 4], at: tempo.frame(bar: bar, beat: Double(step) / 4), gain: step % 4 == 2 ? 0.2 : 0.1,
                    pan: 0.2)
            }
            // A heartbeat: da-DUM on one and three.
            for at in [0.0, 2.0] {
                canvas.add(kick, at: tempo.frame(bar: bar, beat: at), gain: 0.5)
                canvas.add(kick, at: tempo.frame(bar: bar, beat: at + 0.375), gain: 0.8)
            }
            for step in 0..<8 {
                canvas.add(
                    cache.note("bass \(chord.root)") { Instrument.bass(chord.root, seconds: beat * 0.35) },
                    at: tempo.frame(bar: bar, beat: Double(step) / 2),
                    gain: step % 2 == 0 ? 0.5 : 0.35)
            }
            for pitch in chord.voicing {
                canvas.add(
                    cache.note("pad \(pitch)") { Instrument.pad(pitch, seconds: beat * 4 - 0.3, cutoff: 1_200) },
                    at: tempo.frame(bar: bar, beat: 0), gain: 0.22)
            }
            // The ostinato climbs through the chord and back, in sixteenths.
            let tones = chord.voicing.map { $0 + 12 }
            let pattern = [0, 1, 2, 1, 0, 2, 1, 2]
            for step in 0..<16 {
                let pitch = tones[pattern[step % pattern.count] % tones.count]
                canvas.add(
                    cache.note("pluck \(pitch)") { Instrument.pluck(pitch, seconds: beat * 0.22, brightness: 1.4) },
                    at: tempo.frame(bar: bar, beat: Double(step) / 4),
                    gain: step % 4 == 0 ? 0.2 : 0.13, pan: step % 2 == 0 ? -0.35 : 0.35)
            }
            if bar >= 4 {
                canvas.add(
                    Instrument.whistle(line[bar - 4], seconds: beat * 3.8, seed: UInt64(500 + bar)),
                    at: tempo.frame(bar: bar, beat: 0), gain: 0.2)
            }
        }
        return canvas.sound(loops: true)
    }
}
