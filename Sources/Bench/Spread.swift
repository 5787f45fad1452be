/// A set of latency samples in milliseconds and the percentiles the report gives.
struct Spread: Codable, Sendable {
    var count: Int
    var p50: Double
    var p99: Double
    var max: Double

    init(_ samples: [Double]) {
        let sorted = samples.sorted()
        count = sorted.count
        func rank(_ q: Double) -> Double {
            guard !sorted.isEmpty else { return 0 }
            // Nearest rank: the smallest sample with at least q of all samples at or below it.
            let index = Int((q * Double(sorted.count)).rounded(.up)) - 1
            return sorted[Swift.max(0, Swift.min(sorted.count - 1, index))]
        }
        p50 = rank(0.50)
        p99 = rank(0.99)
        max = sorted.last ?? 0
    }
}
