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
        var paused: Bool
        var isEnded: Bool
        var joinToken: String
        var tvJoinTokenHash: String
    }

    /// A participant's seat, as the REST call that made it hands it out.
    struct Seat: Sendable {
        var participantId: ParticipantID
        var token: String
    }

    /// A new player, host or TV: its seat with a fresh token, the command that seats it, and its
    /// row, which keeps only the token's hash.
    struct NewSeat {
        let seat: Seat
        let command: Command
        let record: ParticipantRecord

        init(
            _ role: Role, name: String?, device: String? = nil, captain: Bool = false, sessionId: String, now: Int64
        ) {
            let participantId = Secrets.participantId()
            let token = Secrets.token()
            switch role {
            case .player:
                command = .join(
                    playerId: participantId, name: name ?? "", device: device, captain: captain ? true : nil)
            case .host: command = .claimHost(participantId)
            case .tv: command = .claimTv(participantId)
            }
            record = ParticipantRecord(
                id: participantId, sessionId: sessionId, role: role, tokenHash: Secrets.hash(token), createdAt: now)
            seat = Seat(participantId: participantId, token: token)
        }
    }
}
