/// "Hemkomsten" — the bed under the final standings: C major at 92 bpm, 8 bars (about 21 s). Warm
/// pads, a glockenspiel tune, claps on two and four: a calm, happy homecoming after the fanfare.
enum FinaleBed {
    static let tempo = Tempo(bpm: 92)

    private static let chords: [(root: Int, voicing: [Int])] = [
        (36, [60, 64, 67]), (43, [59, 62, 67]), (45, [60, 64, 69]), (41, [60, 65, 69]),  // C G Am F
        (36, [60, 64, 67]), (43, [59, 62, 67]), (41, [60, 65, 69]), (43, [59, 62, 65, 67]),  // C G F G7
    ]

    private static let melody: [[Note]] = [
        [Note(0, 76, 1), Note(1, 79, 1), Note(2, 84, 2)],
        [Note(0, 83, 1.5), Note(1.5, 79, 0.5), Note(2, 74, 2)],
        [Note(0, 76, 1), Note(1, 81, 1), Note(2, 84, 1), Note(3, 81, 1)],
        [Note(0, 77, 3)],
        [Note(0, 76, 1), Note(1, 79, 1), Note(2, 84, 1.5), Note(3.5, 86, 0.5)],
        [Note(0, 83, 2), Note(2, 79, 2)],
        [Note(0, 81, 1), Note(1, 77, 1), Note(2, 72, 2)],
        [Note(0, 74, 2), Note(2, 71, 1), Note(3, 74, 1)],
    ]

    static func compose() -> Sound {
        let bars = chords.count
        var canvas = Canvas(frames: tempo.frames(bars: bars), wraps: true)
        let beat = tempo.secondsPerBeat
        let kick = Instrument.kick()
        let claps = (0..<2).map { Instrument.clap(seed: 600 + UInt64($0)) }
        let shakes = (0..<4).map { Instrument.shaker(seed: 700 + UInt64($0)) }
        var cache = NoteCache()
        for bar in 0..<bars {
            let chord = chords[bar]
            canvas.add(kick, at: tempo.frame(bar: bar, beat: 0), gain: 0.7)
            canvas.add(kick, at: tempo.frame(bar: bar, beat: 2.5), gain: 0.5)
            canvas.add(claps[0], at: tempo.frame(bar: bar, beat: 1), gain: 0.35, pan: -0.1)
            canvas.add(claps[1], at: tempo.frame(bar: bar, beat: 3), gain: 0.35, pan: 0.1)
            for step in 0..<8 {
                canvas.add(
                    shakes[step % 4], at: tempo.frame(bar: bar, beat: Double(step) / 2),
                    gain: step % 2 == 1 ? 0.25 : 0.14, pan: 0.3)
            }
            canvas.add(
                cache.note("bass \(chord.root) 1") { Instrument.bass(chord.root, seconds: beat * 1.8) },
                at: tempo.frame(bar: bar, beat: 0), gain: 0.5)
            canvas.add(
                cache.note("bass \(chord.root + 7) 2") { Instrument.bass(chord.root + 7, seconds: beat * 0.9) },
                at: tempo.frame(bar: bar, beat: 2), gain: 0.4)
            canvas.add(
                cache.note("bass \(chord.root + 12) 2") { Instrument.bass(chord.root + 12, seconds: beat * 0.9) },
                at: tempo.frame(bar: bar, beat: 3), gain: 0.35)
            for (voice, pitch) in chord.voicing.enumerated() {
                canvas.add(
                    cache.note("pad \(pitch)") { Instrument.pad(pitch, seconds: beat * 4 - 0.3, cutoff: 2_400) },
                    at: tempo.frame(bar: bar, beat: 0), gain: 0.2, pan: -0.3 + 0.2 * Double(voice))
            }
            for note in melody[bar] {
                canvas.add(
                    Instrument.glockenspiel(note.pitch, seconds: beat * note.beats),
                    at: tempo.frame(bar: bar, beat: note.beat), gain: 0.4, pan: 0.15)
                canvas.add(
                    Instrument.electricPiano(note.pitch - 12, seconds: beat * note.beats * 0.9),
                    at: tempo.frame(bar: bar, beat: note.beat), gain: 0.18, pan: -0.15)
            }
        }
        return canvas.sound(loops: true)
    }
}
