/// The six-character code people type to join: no I, L, O, 0 or 1, so it can be read off a TV.
public enum JoinCode {
    public static let alphabet = Array("ABCDEFGHJKMNPQRSTUVWXYZ23456789")
    public static let length = 6

    public static func random(using generator: inout some RandomNumberGenerator) -> String {
        String((0..<length).map { _ in alphabet.randomElement(using: &generator)! })
    }

    /// What a person typed, as a code: case-insensitive, spaces and dashes ignored; nil if it cannot be one.
    public static func normalize(_ input: String) -> String? {
        let code = input.uppercased().filter { $0 != " " && $0 != "-" }
        guard code.count == length, code.allSatisfy(alphabet.contains) else { return nil }
        return code
    }
}
