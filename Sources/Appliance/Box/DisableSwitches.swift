import Foundation

/// `TRIPTO_DISABLE`: the optimisations to run the box without, to measure what each is worth
/// (docs/performance.md). `CTriptoSystem` reads the variable where each one acts (some before
/// `main`); this reads it once more to say at the start what is off, and which names mean nothing.
struct DisableSwitches: Equatable {
    /// Every name the box knows.
    static let names = ["loop-executor", "short-slice", "fd-table"]

    /// The known names in the variable, in the order given.
    let off: [String]
    /// Names in the variable that no optimisation has (a typo switches nothing off).
    let unknown: [String]

    init(_ variable: String?) {
        let given = (variable ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
        off = given.filter(Self.names.contains)
        unknown = given.filter { !Self.names.contains($0) }
    }
}
