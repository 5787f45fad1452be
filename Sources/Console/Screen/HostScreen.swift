import Core

/// The host's pro view: the destination and every answer as they come, the players numbered (in the
/// lobby, and after `x` to kick one), and the controls.
enum HostScreen {
    static func body(_ state: ConsoleState, into page: inout Page, now: Int64) {
        guard let projection = state.projection else { return }
        // Kicking takes a player's number: the numbered list comes first, never cut off by a long
        // clue or many locked answers below it.
        if state.hostMode == .kick {
            page.players(projection, numbered: true)
            return
        }
        if let destination = projection.round?.destination {
            page.add("Destination: \(destination.name), \(destination.country)")
        }
        switch projection.phase {
        case .lobby:
            page.add("Join at \(projection.joinUrl)")
            page.add()
            page.players(projection, numbered: true)
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
    }
}
