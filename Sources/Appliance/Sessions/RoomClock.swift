/// A room's time: the box's clock, moved on by how far it was behind the session's log when the
/// room was rebuilt, and never going back.
///
/// A box started with its clock behind the log's last command (a board without a real-time clock,
/// after a power cut) goes on in the log's time, not back in it. And a message read on another
/// event loop is stamped there, so it can reach the room after one that the room's own loop read
/// later (`RoomInbox`): it takes the later time, so the game's time and the `serverTimeMs` of a
/// session's messages only go forward.
struct RoomClock {
    /// How far the box's clock was behind the log's last command when the room was rebuilt.
    let offset: Int64
    private(set) var now: Int64

    /// A room made at `boxNow` by the box's clock, for a log whose last command is at `lastCommandAt`.
    init(boxNow: Int64, lastCommandAt: Int64?) {
        offset = max(0, (lastCommandAt ?? boxNow) - boxNow)
        now = boxNow + offset
    }

    /// The room's time for what comes in stamped `stamp` by the box's clock: never before anything
    /// it took earlier.
    mutating func advance(_ stamp: Int64) -> Int64 {
        now = max(now, stamp + offset)
        return now
    }

    /// A deadline at `at` fired: the room's time is at least its time.
    mutating func reach(_ at: Int64) -> Int64 {
        now = max(now, at)
        return now
    }
}
