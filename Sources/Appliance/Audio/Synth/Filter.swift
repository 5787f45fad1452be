import Core
import Foundation

/// A second-order filter (the "audio EQ cookbook" biquads), run over a mono buffer in place.
struct Filter {
    enum Shape {
        case lowPass, highPass, bandPass
    }

    private var b0 = 0.0, b1 = 0.0, b2 = 0.0, a1 = 0.0, a2 = 0.0
    private var x1 = 0.0, x2 = 0.0, y1 = 0.0, y2 = 0.0

    init(_ shape: Shape, hz: Double, q: Double = 0.707, rate: Double = Canvas.rate) {
        set(shape, hz: hz, q: q, rate: rate)
    }

    /// Changes the shape or corner without clearing the filter's memory, for sweeps.
    mutating func set(_ shape: Shape, hz: Double, q: Double = 0.707, rate: Double = Canvas.rate) {
        let w = 2 * Double.pi * min(hz, rate * 0.45) / rate
        let alpha = sin(w) / (2 * q)
        let cosw = cos(w)
        let a0 = 1 + alpha
        switch shape {
        case .lowPass:
            b0 = (1 - cosw) / 2
            b1 = 1 - cosw
            b2 = (1 - cosw) / 2
        case .highPass:
            b0 = (1 + cosw) / 2
            b1 = -(1 + cosw)
            b2 = (1 + cosw) / 2
        case .bandPass:
            b0 = alpha
            b1 = 0
            b2 = -alpha
        }
        b0 /= a0
        b1 /= a0
        b2 /= a0
        a1 = -2 * cosw / a0
        a2 = (1 - alpha) / a0
    }

    mutating func process(_ x: Double) -> Double {
        let y = b0 * x + b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2
        x2 = x1
        x1 = x
        y2 = y1
        y1 = y
        return y
    }

    mutating func run(_ samples: inout [Float]) {
        for index in samples.indices { samples[index] = Float(process(Double(samples[index]))) }
    }
}

/// White noise from a seed, so every rendering of the box's sounds is the same.
struct Noise {
    private var generator: SplitMix64

    init(seed: UInt64) { generator = SplitMix64(seed: seed) }

    /// A sample in -1…1.
    mutating func next() -> Double { Double(generator.next() >> 11) / Double(1 << 52) - 1 }
}
