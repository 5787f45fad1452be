import Foundation

/// Joining, leaving and presence.
extension Game {
    /// A display name as the contract wants it: trimmed, 1–20 characters, no control characters.
    public static func validName(_ raw: String) throws(GameError) -> String {
        let name = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty else { throw .invalidName("Enter a name") }
        guard name.count <= 20 else { throw .invalidName("A name has at most 20 characters") }
        let forbidden = name.unicodeScalars.contains { scalar in
            scalar.properties.generalCategory == .control || scalar.properties.generalCategory == .lineSeparator
                || scalar.properties.generalCategory == .paragraphSeparator
                // Bidirectional overrides would reorder the scoreboard around the name.
                || (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value)
        }
        guard !forbidden else { throw .invalidName("A name cannot contain control characters") }
        return name
    }

    mutating func join(
        _ id: ParticipantID, name raw: String, device: String?, now: ServerTime, into out: inout EffectList
    ) throws(GameError) {
        if let device, kickedDevices.contains(device) {
            throw .forbidden("The host removed this phone from the game")
        }
        guard phase != .finalResults && phase != .roundEnd else { throw .gameFinished }
        let name = try Self.validName(raw)
        guard role(of: id) == nil else { throw .invalidPayload("Participant \(id) is already in this session") }
        guard !players.contains(where: { $0.name.lowercased() == name.lowercased() }) else { throw .nameTaken }
        guard players.count < limits.maxPlayers else { throw .sessionFull }
        let player = Player(id: id, name: name, points: 0, joinedAt: now)
        players.append(player)
        if let device { devices[id] = device }
        presence[id] = .disconnected(since: now)
        out.everyone(.playerJoined(PlayerJoined(player: view(of: player))))
        out.everyone(.lobbyUpdated(lobby(at: now)))
    }

    mutating func claimHost(_ id: ParticipantID, now: ServerTime, into out: inout EffectList) throws(GameError) {
        guard !hasHost(at: now) else { throw .hostRoleTaken }
        try seat(id, at: \.hostId, now: now, into: &out)
    }

    mutating func claimTv(_ id: ParticipantID, now: ServerTime, into out: inout EffectList) throws(GameError) {
        guard !hasTv else { throw .tvRoleTaken }
        try seat(id, at: \.tvId, now: now, into: &out)
    }

    /// Gives the host or TV seat to `id`; whoever held it loses it and its token.
    private mutating func seat(
        _ id: ParticipantID, at holder: WritableKeyPath<Game, ParticipantID?>, now: ServerTime,
        into out: inout EffectList
    ) throws(GameError) {
        guard role(of: id) == nil else { throw .invalidPayload("Participant \(id) is already in this session") }
        if let previous = self[keyPath: holder] {
            presence[previous] = nil
            out.append(.revoke(previous))
        }
        self[keyPath: holder] = id
        presence[id] = .disconnected(since: now)
        out.everyone(.lobbyUpdated(lobby(at: now)))
    }

    mutating func removePlayer(
        _ id: ParticipantID, reason: PlayerLeft.Reason, now: ServerTime, into out: inout EffectList
    ) {
        if brake?.ownerId == id { releaseBrake(now: now, into: &out) }
        withdrawPulls(of: id, now: now, into: &out)
        players.removeAll { $0.id == id }
        if captainId == id { captainId = players.first?.id }
        devices[id] = nil
        presence[id] = nil
        lastBrakePull[id] = nil
        round?.locks.removeAll { $0.playerId == id }
        round?.followup?.answers[id] = nil
        out.everyone(.playerLeft(PlayerLeft(playerId: id, reason: reason)))
        out.everyone(.lobbyUpdated(lobby(at: now)))
        out.append(.revoke(id))
    }

    /// A connection of `id` opened or the last one closed. Presence is not part of the command log:
    /// after a restart everyone starts disconnected (`resetPresence`). Returns LOBBY_UPDATED when it changed.
    public mutating func setConnected(_ id: ParticipantID, _ connected: Bool, now: ServerTime) -> [Effect] {
        guard endedReason == nil, role(of: id) != nil else { return [] }
        let wasConnected = presence[id] == .connected
        guard wasConnected != connected else { return [] }
        presence[id] = connected ? .connected : .disconnected(since: now)
        version += 1
        return [.send(.lobbyUpdated(lobby(at: now)), to: .everyone)]
    }

    /// After a restart nobody is connected; the host's grace period starts now.
    public mutating func resetPresence(now: ServerTime) {
        for id in [hostId, tvId].compactMap(\.self) + players.map(\.id) {
            presence[id] = .disconnected(since: now)
        }
    }

    func view(of player: Player) -> PlayerView {
        PlayerView(playerId: player.id, name: player.name, isConnected: isConnected(player.id), points: player.points)
    }

    public func lobby(at now: ServerTime) -> LobbyUpdated {
        LobbyUpdated(players: players.map(view(of:)), hasHost: hasHost(at: now), hasTv: hasTv, settings: settings)
    }
}
