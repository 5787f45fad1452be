import HTTPTypes

/// The phone a player joins from: a random token the box gives it in a cookie at its first join and
/// reads back at the next ones (docs/protocol.md, "Devices"). The box keeps only the token's hash:
/// a player the host kicked does not come back from that phone under another name, and a kiosk's
/// tonight's leaderboard knows a guest from game to game, with no account.
enum DeviceCookie {
    static let name = "tripto_device"
    /// The length of `Secrets.token()`: 24 random bytes in base64url.
    static let length = 32

    /// The token in the request's cookies, if it is one the box could have made.
    static func token(in headers: HTTPFields) -> String? {
        for field in headers[values: .cookie] {
            for pair in field.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                guard parts.count == 2, parts[0] == name, parts[1].count == length,
                    parts[1].unicodeScalars.allSatisfy({
                        ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "-"
                            || $0 == "_"
                    })
                else { continue }
                return parts[1]
            }
        }
        return nil
    }

    /// The cookie for a new token: kept a year, sent only to the box, never read by its pages.
    static func header(_ token: String) -> String {
        "\(name)=\(token); Path=/; Max-Age=31536000; HttpOnly; SameSite=Strict"
    }
}
