/// Chooses a game's destinations from a pack (or a mix of packs): ones this box has not played
/// recently come first, otherwise at random (from the caller's generator); and within the game,
/// never two of the same country in a row where the pack allows it.
public enum DestinationDraw {
    /// - Parameter recentlyPlayed: destination ids of this pack, most recently played first.
    public static func draw(
        _ count: Int, from pack: Pack, recentlyPlayed: [String], using generator: inout some RandomNumberGenerator
    ) -> [Destination] {
        var age: [String: Int] = [:]
        for (position, id) in recentlyPlayed.enumerated() where age[id] == nil { age[id] = position }
        // Never played ranks first; among played ones, the longest ago first; ties in random order.
        let rank = { (destination: Destination) in -(age[destination.id] ?? Int.max) }
        var remaining = pack.destinations.shuffled(using: &generator).enumerated()
            .sorted { (rank($0.element), $0.offset) < (rank($1.element), $1.offset) }
            .map(\.element)
        // Freshness decides which destinations are played: each comes from the freshest ones left,
        // and among those equally fresh, one of another country than the last where there is one.
        var chosen: [Destination] = []
        while chosen.count < count, let first = remaining.first {
            let tier = remaining.prefix { rank($0) == rank(first) }
            let last = chosen.last.map(countryKey)
            let index = tier.firstIndex { countryKey($0) != last } ?? 0
            chosen.append(remaining.remove(at: index))
        }
        return ordered(chosen)
    }

    /// The destinations in an order with no two of one country next to each other, where that can be
    /// done, otherwise as few as can be; as close to the given order as that allows.
    static func ordered(_ destinations: [Destination]) -> [Destination] {
        var remaining = destinations
        var result: [Destination] = []
        while !remaining.isEmpty {
            let last = result.last.map(countryKey)
            var counts: [String: Int] = [:]
            for destination in remaining { counts[countryKey(destination), default: 0] += 1 }
            // A country that holds over half of what is left must go now, or two of it meet later.
            let pressing = counts.first { $0.key != last && $0.value * 2 > remaining.count }?.key
            let index =
                remaining.firstIndex { countryKey($0) == pressing }
                ?? remaining.firstIndex { countryKey($0) != last } ?? 0
            result.append(remaining.remove(at: index))
        }
        return result
    }

    private static func countryKey(_ destination: Destination) -> String {
        AnswerText.normalized(destination.country)
    }
}
