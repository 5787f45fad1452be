/// The names of voice clips. On the wire a clip is named by its place in the game (`r2-clue-10`),
/// never by its destination: a destination's id is usually its name, and the TV must not learn it
/// before the reveal. The box maps a wire name to the pack's file (`<destinationId>-clue-10`) only
/// once the clip has been played.
public enum AudioClip {
    public static let intro = "intro"

    static func clue(round: Int, points: Int) -> String { "r\(round + 1)-clue-\(points)" }
    static func reveal(round: Int) -> String { "r\(round + 1)-reveal" }
    static func followup(round: Int, index: Int) -> String { "r\(round + 1)-followup-\(index)" }
    static func banter(round: Int) -> String { "r\(round + 1)-banter" }
}

extension Game {
    /// The pack clip (file name without `.wav`) behind a wire clip id, if that clip has already been
    /// played in this game; nil for anything not yet heard, so clips cannot be fetched ahead.
    public func packClip(for clipId: String) -> String? {
        if clipId == AudioClip.intro { return AudioClip.intro }
        let parts = clipId.split(separator: "-")
        guard parts.count >= 2, parts[0].first == "r", let number = Int(parts[0].dropFirst()), number >= 1,
            number <= plan.count, let current = round, phase != .lobby
        else { return nil }
        let index = number - 1
        guard index <= current.index else { return nil }
        let destination = plan[index]
        let past = index < current.index
        switch (parts[1], parts.count) {
        case ("clue", 3):
            guard let points = Int(parts[2]), let level = destination.clues.firstIndex(where: { $0.points == points })
            else {
                return nil
            }
            let heard = past || current.revealed || (current.levelIndex.map { level <= $0 } ?? false)
            return heard ? "\(destination.id)-clue-\(points)" : nil
        case ("reveal", 2):
            return past || current.revealed ? "\(destination.id)-reveal" : nil
        case ("banter", 2):
            guard past || current.revealed, let line = Self.banterIndex(round: index, of: destination) else {
                return nil
            }
            return "\(destination.id)-banter-\(line + 1)"
        case ("followup", 3):
            guard let number = Int(parts[2]), number >= 1, number <= destination.followups.count else { return nil }
            let heard = past || (current.followup.map { number <= $0.index } ?? false)
            return heard ? "\(destination.id)-followup-\(number)" : nil
        default:
            return nil
        }
    }

    /// Every pack clip of the current round, for the box's own speaker to load before it is needed.
    /// Box-internal: these names carry the destination id and never go to a client.
    public var currentRoundPackClips: [String] {
        guard let destination = round?.destination else { return [] }
        let banter = round.flatMap { Self.banterIndex(round: $0.index, of: destination) }
        return destination.clues.map { "\(destination.id)-clue-\($0.points)" } + ["\(destination.id)-reveal"]
            + (banter.map { ["\(destination.id)-banter-\($0 + 1)"] } ?? [])
            + destination.followups.indices.map { "\(destination.id)-followup-\($0 + 1)" }
    }

    /// Which of a destination's banter lines is said after its reveal in round `round` (0-based):
    /// they take turns from game to game as the destination comes up in other rounds.
    static func banterIndex(round: Int, of destination: Destination) -> Int? {
        guard let count = destination.banter?.count, count > 0 else { return nil }
        return round % count
    }

    /// The banter line said after the reveal of round `round`, if its destination has any.
    func banterLine(round: Int) -> String? {
        guard round < plan.count, let index = Self.banterIndex(round: round, of: plan[round]) else { return nil }
        return plan[round].banter?[index]
    }

    /// Moves `version` past every version an earlier run of the box can have sent: presence changes
    /// are not in the command log, so a replayed game would otherwise count from a lower number.
    /// `boot` is how many times the box has started.
    public mutating func resumeVersion(boot: Int) {
        version = (boot << 32) + version
    }

    /// Moves `version` past `seen`, for a game rebuilt from its log while the box runs (after a
    /// command could not be saved): its clients must still see the version go up.
    public mutating func continueVersion(after seen: Int) {
        version = max(version, seen + 1)
    }
}
