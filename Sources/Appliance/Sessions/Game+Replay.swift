import Core
import Logging

extension Game {
    /// A session's game rebuilt by replaying its command log: at the box's start, and when a room
    /// goes back to what is on disk after a failed save.
    static func replaying(
        _ commands: [CommandRecord], of record: SessionRecord, environment: RoomEnvironment, logger: Logger
    ) -> Game {
        // A session saved before its pacing was kept played by the box's own, from before the
        // reveal waited for the voice: its logged timers fire when they did then.
        var saved = environment.pacing
        saved.voiceMsPerCharacter = nil
        var game = Game(
            sessionId: record.id, joinCode: record.joinCode,
            joinUrl: environment.address.joinURL(sessionId: record.id, joinToken: record.joinToken),
            settings: record.settings, limits: record.limits,
            pacing: record.pacing ?? saved)
        for entry in commands {
            do {
                _ = try game.apply(entry.command, by: entry.actor, now: entry.at)
            } catch {
                // A log that does not replay is a bug; keep what replayed rather than losing the session.
                logger.error("replay stopped", metadata: ["seq": "\(entry.seq)", "error": "\(error)"])
                break
            }
        }
        return game
    }
}
