import Core

extension SessionRoom {
    /// What the hub and the REST calls need to know of a session, read in one step.
    struct Summary: Sendable {
        var hasHost: Bool
        var hasTv: Bool
        var playerCount: Int
        var connectedPlayerCount: Int
        /// How long its command log is (replayed at every start of the box).
        var commandCount: Int
        var phase: Phase
        var isEnded: Bool
        var joinToken: String
        var tvJoinTokenHash: String
    }
}
