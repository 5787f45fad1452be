import Foundation

/// Changes a clip's sample rate (espeak-ng speaks at 22,050 Hz; the box plays at 48 kHz) with a
/// windowed-sinc filter, which keeps speech clear where straight-line interpolation would add hiss.
enum Resampler {
    /// Taps on each side of a sample.
    private static let halfWidth = 12
    /// Steps per unit of the tabulated kernel.
    private static let resolution = 256

    /// sinc(x)·Blackman window for x in 0…halfWidth, tabulated once.
    private static let kernel: [Double] = {
        let count = halfWidth * resolution + 2
        return (0..<count).map { step in
            let x = Double(step) / Double(resolution)
            guard x < Double(halfWidth) else { return 0 }
            let sinc = x == 0 ? 1 : sin(.pi * x) / (.pi * x)
            let phase = .pi * (x / Double(halfWidth) + 1)
            let window = 0.42 - 0.5 * cos(phase) + 0.08 * cos(2 * phase)
            return sinc * window
        }
    }()

    static func resample(_ input: [Float], from inputRate: Double, to outputRate: Double) -> [Float] {
        guard inputRate != outputRate, !input.isEmpty else { return input }
        // The filter's corner sits a little under the lower Nyquist frequency, so neither aliases
        // (going down) nor images (going up) get through the transition band.
        let scale = 0.92 * min(1, outputRate / inputRate)
        let step = inputRate / outputRate
        let count = Int((Double(input.count) / step).rounded(.down))
        let reach = Int((Double(halfWidth) / scale).rounded(.up))
        var output = [Float](repeating: 0, count: count)
        input.withUnsafeBufferPointer { input in
            kernel.withUnsafeBufferPointer { kernel in
                for index in 0..<count {
                    let position = Double(index) * step
                    let centre = Int(position)
                    var sum = 0.0
                    var weights = 0.0
                    for source in max(0, centre - reach + 1)...min(input.count - 1, centre + reach) {
                        let x = abs(position - Double(source)) * scale * Double(resolution)
                        let at = Int(x)
                        guard at + 1 < kernel.count else { continue }
                        let fraction = x - Double(at)
                        let weight = kernel[at] + (kernel[at + 1] - kernel[at]) * fraction
                        sum += Double(input[source]) * weight
                        weights += weight
                    }
                    output[index] = weights > 0 ? Float(sum / weights) : 0
                }
            }
        }
        return output
    }
}
