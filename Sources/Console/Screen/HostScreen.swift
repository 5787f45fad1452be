import Core

/// The host's pro view: the destination and every answer as they come, the players numbered (in the
/// lobby, and after `x` to kick one), and the controls.
enum HostScreen {
    static func body(_ state: ConsoleState, into page: inout Page, now: Int64) {
        guard let projection = state.projection else { return }
        // Kicking takes a player's number: the numbered list comes first, never cut off by a long
        // clue or many locked answers below it.
        if state.hostMode == .kick {
            page.players(projection, numbered: true, links: state.links)
            return
        }
        if let warning = slowWarning(state) { page.add(warning) }
        if let destination = projection.round?.destination {
            page.add("Destination: \(destination.name), \(destination.country)")
        }
        switch projection.phase {
        case .lobby:
            page.add("Join at \(projection.joinUrl)")
            page.add()
            page.players(projection, numbered: true, links: state.links)
            page.add()
            page.add(projection.players.isEmpty ? "Waiting for players to join." : "Press s to start the game.")
        case .preparingRound, .roundIntro, .clueLevel, .pausedForBrake:
            page.clue(state, now: now)
            page.locked(state, withText: true)
        case .revealDestination: page.reveal(state)
        case .followupQuestion: page.followup(state, now: now, showAnswers: true)
        case .scoreboard: page.scoreboard(projection.scoreboard)
        case .finalResults, .roundEnd:
            page.finale(state)
            page.add()
            page.add("Press t to play again with the same players.")
        }
        // Below the game, on the lines left over: the lobby's list already shows them.
        if projection.phase != .lobby, let trips = roundTrips(state) {
            page.add()
            page.add(trips)
        }
    }

    /// The players whose link the host should know about, in the order of the players' list.
    static func slowPlayers(_ state: ConsoleState) -> [PlayerView] {
        (state.projection?.players ?? []).filter { state.links[$0.playerId]?.isPoor == true }
    }

    /// One line naming the players on a poor link; nil when there is none.
    static func slowWarning(_ state: ConsoleState) -> String? {
        let slow = slowPlayers(state)
        guard let first = slow.first else { return nil }
        if slow.count == 1 { return "\(first.name)'s phone is on a slow connection" }
        let names = slow.dropLast().map(\.name).joined(separator: ", ") + " and " + slow.last!.name
        return "\(names) are on slow connections"
    }

    /// "Round trips: Ada 45 ms · Bo 320 ms (slow)"; nil before the box has measured anyone.
    static func roundTrips(_ state: ConsoleState) -> String? {
        let measured = (state.projection?.players ?? []).compactMap { player in
            state.links[player.playerId]?.roundTripText.map { "\(player.name) \($0)" }
        }
        return measured.isEmpty ? nil : "Round trips: " + measured.joined(separator: " · ")
    }
}

extension ConnectionQuality.Link {
    /// Poor enough to tell the host: a median round trip over 250 ms or jitter over 60 ms (a pull
    /// then reaches the box late or unevenly, and the box can look back at most 150 ms), or, once a
    /// round trip is known, no clock estimate (echoes lost or too late: its pulls count when they
    /// arrive). A player the box has not measured yet (no echo, or a v1 client that never answers
    /// probes) is not called slow.
    var isPoor: Bool {
        guard let roundTrip = rttMs else { return false }
        return roundTrip > 250 || (jitterMs ?? 0) > 60 || !clockOk
    }

    /// "45 ms", "320 ms (slow)"; nil before the first round trip.
    var roundTripText: String? {
        rttMs.map { "\($0) ms" + (isPoor ? " (slow)" : "") }
    }
}
