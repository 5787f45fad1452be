import Foundation

/// One loudness for everything the box plays, so voice, music and effects sit together before the
/// mixer's own levels (music gain, ducking) are applied.
enum Loudness {
    /// The level every clip is brought to: the RMS of its sounding parts, in dBFS.
    static let referenceDb = -20.0
    /// No peak may be louder than this after normalising (dBFS).
    static let peakCeilingDb = -1.0

    /// The RMS level in dBFS of the 20 ms blocks that sound (within 30 dB of the loudest block), so
    /// pauses between words or hits do not make a clip read as quiet. The gate is relative, so a clip
    /// measures the same at any volume. nil for silence.
    static func gatedLevel(_ interleaved: [Float]) -> Double? {
        let block = 960 * 2
        var blocks: [Double] = []
        var start = 0
        while start < interleaved.count {
            let end = min(interleaved.count, start + block)
            var sum = 0.0
            for index in start..<end { sum += Double(interleaved[index]) * Double(interleaved[index]) }
            blocks.append(sum / Double(end - start))
            start = end
        }
        guard let loudest = blocks.max(), loudest > 1e-12 else { return nil }
        let sounding = blocks.filter { $0 >= loudest / 1_000 }
        return 10 * log10(sounding.reduce(0, +) / Double(sounding.count))
    }

    static func peakDb(_ samples: [Float]) -> Double {
        let peak = samples.reduce(Float(0)) { max($0, abs($1)) }
        return peak > 0 ? 20 * log10(Double(peak)) : -.infinity
    }

    /// The samples brought to the reference level, held under the peak ceiling.
    static func normalised(_ interleaved: [Float]) -> [Float] {
        guard let level = gatedLevel(interleaved) else { return interleaved }
        let gainDb = min(referenceDb - level, peakCeilingDb - peakDb(interleaved))
        let gain = Float(pow(10, gainDb / 20))
        return interleaved.map { $0 * gain }
    }
}
