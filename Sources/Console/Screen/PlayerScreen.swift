import Core

/// A player's screen: the clue, the brake, typing the answers, and their own score.
enum PlayerScreen {
    static func body(_ state: ConsoleState, into page: inout Page, now: Int64) {
        guard let projection = state.projection else { return }
        if let you = projection.you {
            page.add("\(you.name) · \(you.points) points · place \(you.rank) of \(projection.scoreboard.count)")
        }
        page.add()
        switch projection.phase {
        case .lobby:
            page.centered(
                projection.startsByItself
                    ? "You are in! The game starts by itself once players are here."
                    : "You are in! Waiting for the host to start.")
            page.add()
            page.players(projection)
        case .preparingRound, .roundIntro, .clueLevel, .pausedForBrake:
            page.clue(state, now: now)
            if state.answerTarget == .brake {
                page.add("You pulled the brake! Where are we going? Type it and press Enter.")
                page.add("> \(state.input)_")
            } else if let locked = projection.lockedAnswers.first(where: { $0.playerId == state.playerId }) {
                page.add("Your answer is locked at \(locked.lockedAtLevelPoints) points.")
            } else if projection.phase == .clueLevel {
                page.add("Know where we are going? Press SPACE to pull the brake!")
            }
        case .revealDestination: page.reveal(state)
        case .followupQuestion:
            page.followup(state, now: now, showAnswers: false)
            if case .followup = state.answerTarget {
                if let answer = projection.you?.followupAnswer { page.add("Your answer: \(answer)") }
                page.add("> \(state.input)_")
            }
        case .scoreboard: page.scoreboard(projection.scoreboard, you: state.playerId)
        case .finalResults, .roundEnd: page.finale(state)
        }
    }
}
