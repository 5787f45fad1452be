import Foundation

/// A stereo piece being written note by note. A looping canvas wraps: what still rings past its end
/// sounds again from its start, so the loop point is as smooth as any other moment of the piece.
struct Canvas {
    static let rate = 48_000.0

    private(set) var left: [Float]
    private(set) var right: [Float]
    let wraps: Bool

    var frames: Int { left.count }

    init(seconds: Double, wraps: Bool) {
        self.init(frames: Int((seconds * Self.rate).rounded()), wraps: wraps)
    }

    init(frames: Int, wraps: Bool) {
        left = Array(repeating: 0, count: frames)
        right = Array(repeating: 0, count: frames)
        self.wraps = wraps
    }

    /// Mixes a mono note in at `frame`, at `gain`, placed from -1 (left) to 1 (right) at equal power.
    mutating func add(_ note: [Float], at frame: Int, gain: Double = 1, pan: Double = 0) {
        let angle = (min(max(pan, -1), 1) + 1) * Double.pi / 4
        let gainLeft = Float(gain * cos(angle) * 2.0.squareRoot())
        let gainRight = Float(gain * sin(angle) * 2.0.squareRoot())
        let count = frames
        left.withUnsafeMutableBufferPointer { left in
            right.withUnsafeMutableBufferPointer { right in
                note.withUnsafeBufferPointer { note in
                    for index in 0..<note.count {
                        var at = frame + index
                        if at >= count {
                            guard wraps else { return }
                            at %= count
                        }
                        guard at >= 0 else { continue }
                        left[at] += note[index] * gainLeft
                        right[at] += note[index] * gainRight
                    }
                }
            }
        }
    }

    /// The finished piece as a sound, normalised to the box's reference loudness.
    func sound(loops: Bool) -> Sound {
        var samples = [Float](repeating: 0, count: frames * 2)
        for index in 0..<frames {
            samples[2 * index] = left[index]
            samples[2 * index + 1] = right[index]
        }
        return Sound(interleaved: Loudness.normalised(samples), loops: loops)
    }
}

/// Where notes fall in a piece with a steady beat. Beats are whole frames, so bars line up exactly
/// with the loop length.
struct Tempo {
    let framesPerBeat: Int
    let beatsPerBar: Int

    init(bpm: Double, beatsPerBar: Int = 4) {
        framesPerBeat = Int((Canvas.rate * 60 / bpm).rounded())
        self.beatsPerBar = beatsPerBar
    }

    var secondsPerBeat: Double { Double(framesPerBeat) / Canvas.rate }

    func frames(bars: Int) -> Int { bars * beatsPerBar * framesPerBeat }

    /// The frame of a beat (fractions allowed) in a bar, both counted from 0.
    func frame(bar: Int, beat: Double) -> Int {
        bar * beatsPerBar * framesPerBeat + Int((beat * Double(framesPerBeat)).rounded())
    }

    func seconds(beats: Double) -> Double { beats * secondsPerBeat }
}

/// A note of a written part: when (in beats within its bar), which MIDI note, how long (in beats).
struct Note {
    var beat: Double
    var pitch: Int
    var beats: Double

    init(_ beat: Double, _ pitch: Int, _ beats: Double) {
        self.beat = beat
        self.pitch = pitch
        self.beats = beats
    }
}

extension Double {
    /// The frequency of a MIDI note number (A4 = 69 = 440 Hz).
    static func hertz(_ pitch: Int) -> Double { 440 * pow(2, Double(pitch - 69) / 12) }
}

/// Notes already rendered in a piece, so a chord or bass note played in many bars is made once.
struct NoteCache {
    private var notes: [String: [Float]] = [:]

    mutating func note(_ key: String, _ make: () -> [Float]) -> [Float] {
        if let note = notes[key] { return note }
        let note = make()
        notes[key] = note
        return note
    }
}
