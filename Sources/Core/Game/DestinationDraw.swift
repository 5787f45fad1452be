/// Chooses a game's destinations from a pack: ones this box has not played recently come first,
/// otherwise at random (from the caller's generator).
public enum DestinationDraw {
    /// - Parameter recentlyPlayed: destination ids of this pack, most recently played first.
    public static func draw(
        _ count: Int, from pack: Pack, recentlyPlayed: [String], using generator: inout some RandomNumberGenerator
    ) -> [Destination] {
        var age: [String: Int] = [:]
        for (position, id) in recentlyPlayed.enumerated() where age[id] == nil { age[id] = position }
        // Never played ranks first; among played ones, the longest ago first; ties in random order.
        let shuffled = pack.destinations.shuffled(using: &generator)
        let ranked = shuffled.enumerated().sorted { lhs, rhs in
            let left = age[lhs.element.id] ?? Int.max
            let right = age[rhs.element.id] ?? Int.max
            return left != right ? left > right : lhs.offset < rhs.offset
        }
        return ranked.prefix(max(0, count)).map(\.element)
    }
}
