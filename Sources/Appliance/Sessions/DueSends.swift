/// What waits for a room's next free moment, as decisions: a LOBBY_UPDATED for presence changes
/// and everyone's snapshots, and which of the room's two delayed sends are scheduled.
///
/// Snapshots go out at the room's next free moment: after a burst of commands (every player
/// answering at once) each client gets one for the state after all of them, rather than one per
/// command. A connection coming or going waits for the presence window instead, with every other
/// presence change of that time: phones connect in waves (a venue's room sitting down, everyone
/// coming back after the Wi-Fi dropped), and in a session of 200 each change is 200 snapshots
/// (docs/performance.md, "Presence told at most every 100 ms"). Whichever send comes first takes
/// everything due along.
struct DueSends {
    private(set) var lobby = false
    private(set) var snapshots = false
    private var nextMomentScheduled = false
    private var presenceScheduled = false

    /// A command changed the game: snapshots are due. True if the room must schedule a send at its
    /// next free moment (none is scheduled yet).
    mutating func changed() -> Bool {
        snapshots = true
        guard !nextMomentScheduled else { return false }
        nextMomentScheduled = true
        return true
    }

    /// A connection came or went: a LOBBY_UPDATED and snapshots are due. True if the room must
    /// schedule a send after the presence window.
    mutating func presenceChanged() -> Bool {
        lobby = true
        snapshots = true
        guard !presenceScheduled else { return false }
        presenceScheduled = true
        return true
    }

    /// The send scheduled for the next free moment runs (or another send took its place).
    mutating func nextMomentCame() { nextMomentScheduled = false }

    /// The presence window is over: true if anything is still due.
    mutating func presenceWindowEnded() -> Bool {
        presenceScheduled = false
        return lobby || snapshots
    }

    /// Everything due goes out now: what that is. After this nothing is due.
    mutating func take() -> (lobby: Bool, snapshots: Bool) {
        defer {
            lobby = false
            snapshots = false
        }
        return (lobby, snapshots)
    }
}
