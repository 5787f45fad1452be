/// "På väg" — the journey loop under the clues: D major at 124 bpm, 16 bars (about 31 s). A shaker
/// chugs in sixteenths like a train on the rails, a whistle plays the tune over electric-piano
/// off-beats and a walking bass.
enum TravelBed {
    static let tempo = Tempo(bpm: 124)

    /// One chord per bar: bass root, and the piano's voicing.
    private static let chords: [(root: Int, voicing: [Int])] = [
        (38, [62, 66, 69]), (35, [62, 66, 71]), (43, [62, 67, 71]), (45, [61, 64, 69]),  // D Bm G A
        (38, [62, 66, 69]), (35, [62, 66, 71]), (43, [62, 67, 71]), (45, [61, 64, 69]),
        (43, [62, 67, 71]), (45, [61, 64, 69]), (42, [61, 66, 69]), (35, [62, 66, 71]),  // G A F#m Bm
        (43, [62, 67, 71]), (40, [59, 64, 67]), (45, [61, 64, 67]), (45, [61, 64, 69]),  // G Em A7 A
    ]

    private static let melody: [[Note]] = [
        [Note(0, 78, 1.5), Note(1.5, 81, 0.5), Note(2, 78, 1), Note(3, 76, 1)],
        [Note(0, 74, 1.5), Note(1.5, 78, 0.5), Note(2, 71, 2)],
        [Note(0, 71, 1), Note(1, 74, 1), Note(2, 79, 1.5), Note(3.5, 78, 0.5)],
        [Note(0, 76, 2), Note(2, 69, 1), Note(3, 73, 1)],
        [Note(0, 74, 1), Note(1, 78, 1), Note(2, 81, 1.5), Note(3.5, 83, 0.5)],
        [Note(0, 81, 1), Note(1, 78, 1), Note(2, 74, 2)],
        [Note(0, 79, 1.5), Note(1.5, 78, 0.5), Note(2, 76, 1), Note(3, 74, 1)],
        [Note(0, 76, 3)],
        [Note(0, 83, 1), Note(1, 81, 1), Note(2, 79, 1), Note(3, 74, 1)],
        [Note(0, 73, 1), Note(1, 76, 1), Note(2, 81, 2)],
        [Note(0, 81, 1), Note(1, 78, 1), Note(2, 73, 1), Note(3, 78, 1)],
        [Note(0, 74, 1.5), Note(1.5, 78, 0.5), Note(2, 83, 2)],
        [Note(0, 79, 1), Note(1, 83, 1), Note(2, 86, 1.5), Note(3.5, 83, 0.5)],
        [Note(0, 79, 1), Note(1, 76, 1), Note(2, 71, 2)],
        [Note(0, 73, 1), Note(1, 76, 1), Note(2, 81, 1), Note(3, 79, 1)],
        [Note(0, 76, 1), Note(1, 73, 1), Note(2, 69, 2)],
    ]

    static func compose() -> Sound {
        let bars = chords.count
        var canvas = Canvas(frames: tempo.frames(bars: bars), wraps: true)
        let beat = tempo.secondsPerBeat
        let kick = Instrument.kick()
        let brush = (0..<4).map { Instrument.snare(seed: 100 + UInt64($0), soft: true) }
        let shakes = (0..<8).map { Instrument.shaker(seed: 200 + UInt64($0)) }
        let hat = Instrument.hat(seed: 300)
        var cache = NoteCache()
        for bar in 0..<bars {
            let chord = chords[bar]
            // The train: sixteenths, leaning on the first of each pair.
            for step in 0..<16 {
                let accent = step % 2 == 0 ? 1.0 : 0.55
                canvas.add(
                    shakes[step % shakes.count], at: tempo.frame(bar: bar, beat: Double(step) / 4),
                    gain: 0.32 * accent, pan: 0.35)
            }
            for step in 0..<8 where step % 2 == 1 {
                canvas.add(hat, at: tempo.frame(bar: bar, beat: Double(step) / 2), gain: 0.22, pan: -0.3)
            }
            canvas.add(kick, at: tempo.frame(bar: bar, beat: 0), gain: 0.9)
            canvas.add(kick, at: tempo.frame(bar: bar, beat: 2), gain: 0.75)
            canvas.add(brush[bar % 4], at: tempo.frame(bar: bar, beat: 1), gain: 0.45, pan: 0.1)
            canvas.add(brush[(bar + 1) % 4], at: tempo.frame(bar: bar, beat: 3), gain: 0.45, pan: 0.1)
            // Bass: root, a fifth on the "and" of two, root, and a step towards the next chord.
            let next = chords[(bar + 1) % bars].root
            let approach = next > chord.root ? next - 1 : next + 1
            for (at, pitch, length) in [
                (0.0, chord.root, 1.4), (1.5, chord.root + 7, 0.45), (2.0, chord.root + 12, 0.9),
                (3.0, chord.root, 0.45), (3.5, approach, 0.45),
            ] {
                canvas.add(
                    cache.note("bass \(pitch) \(length)") { Instrument.bass(pitch, seconds: beat * length) },
                    at: tempo.frame(bar: bar, beat: at), gain: 0.55)
            }
            // Piano on the off-beats.
            for at in [0.5, 1.5, 2.5, 3.5] {
                for (voice, pitch) in chord.voicing.enumerated() {
                    canvas.add(
                        cache.note("piano \(pitch)") { Instrument.electricPiano(pitch, seconds: beat * 0.4) },
                        at: tempo.frame(bar: bar, beat: at),
                        gain: 0.16, pan: -0.25 + 0.25 * Double(voice))
                }
            }
            for note in melody[bar] {
                let seconds = beat * note.beats * 0.95
                canvas.add(
                    Instrument.whistle(note.pitch, seconds: seconds, seed: UInt64(bar * 16 + note.pitch)),
                    at: tempo.frame(bar: bar, beat: note.beat), gain: 0.34, pan: 0.05)
                canvas.add(
                    cache.note("pluck \(note.pitch) \(note.beats)") {
                        Instrument.pluck(note.pitch - 12, seconds: seconds)
                    }, at: tempo.frame(bar: bar, beat: note.beat),
                    gain: 0.16, pan: -0.2)
            }
        }
        return canvas.sound(loops: true)
    }
}
