import Core

/// Draws the console: `height` lines of plain text, none wider than `width`. Pure, so it is tested
/// at 80×24 without a terminal. `now` is our clock in epoch milliseconds (for countdowns).
enum Screen {
    static func render(_ state: ConsoleState, width: Int, height: Int, now: Int64) -> [String] {
        let footer = state.endedReason == nil ? footer(state, width: width) : ["Leaving…"]
        // The footer's lines are kept free, so a body that fills the page (the QR) is never cut.
        var page = Page(width: width, height: height - footer.count)
        page.add(header(state, width: page.width))
        page.add(String(repeating: "─", count: page.width))
        if let reason = state.endedReason {
            page.add()
            page.centered(Self.ended(reason))
        } else if state.projection == nil {
            page.add()
            page.centered(state.link == .connecting ? "Connecting to the box…" : "Waiting for the box…")
        } else {
            switch state.role {
            case .tv: TVScreen.body(state, into: &page, now: now)
            case .host: HostScreen.body(state, into: &page, now: now)
            case .player: PlayerScreen.body(state, into: &page, now: now)
            }
        }
        return page.finished(footer: footer, height: height)
    }

    /// The session's end in words: the box's reason is a code (`host_ended`, `expired`, …).
    static func ended(_ reason: String) -> String {
        switch reason {
        case "host_ended": "The session has ended: the host ended the game."
        case "expired": "The session has ended: closed after a while without players."
        default: "The session has ended."
        }
    }

    static func header(_ state: ConsoleState, width: Int) -> String {
        var left = "TRIPTO · \(state.role.rawValue) · code \(state.joinCode)"
        if let round = state.projection?.round { left += " · round \(round.index)/\(round.total)" }
        let right: String
        switch state.link {
        case .connecting: right = "connecting…"
        case .online: right = state.projection?.paused == true ? "PAUSED · online" : "online"
        case .offline: right = "offline — reconnecting…"
        }
        let gap = width - left.count - right.count
        guard gap >= 1 else { return Page.fit(right + " " + left, width) }
        return left + String(repeating: " ", count: gap) + right
    }

    static func footer(_ state: ConsoleState, width: Int) -> [String] {
        var lines: [String] = []
        // The TV's title says it too; a second line there would push the QR off a small screen.
        if case .offline = state.link, state.role != .tv { lines.append("Offline — reconnecting to the box…") }
        if let notice = state.notice { lines.append(notice) }
        switch state.role {
        case .tv: lines.append("q or Ctrl-C leaves")
        // The host's keys take two lines on a narrow terminal rather than losing the last ones.
        case .host:
            var line = ""
            for key in ConsoleState.hostKeys(paused: state.projection?.paused == true) {
                if !line.isEmpty, line.count + 2 + key.count > width {
                    lines.append(line)
                    line = ""
                }
                line += (line.isEmpty ? "" : "  ") + key
            }
            lines.append(line)
        case .player:
            // The brake is offered only when a pull could work.
            switch state.answerTarget {
            case .brake, .followup: lines.append("Type your answer, Enter sends · Ctrl-C leaves")
            case nil where state.answerLocked: lines.append("Your answer is locked · Ctrl-C leaves")
            case nil where state.projection?.paused == true: lines.append("The game is paused · Ctrl-C leaves")
            case nil: lines.append("Space or Enter pulls the brake · Ctrl-C leaves")
            }
            if state.isCaptain { lines.append("Captain: " + ConsoleState.captainKeys) }
        }
        return lines
    }
}

/// The parts every role's screen shares.
extension Page {
    /// The players' list; `links` (the host's) adds each one's round trip as the box measured it.
    mutating func players(
        _ projection: Projection, numbered: Bool = false, links: [ParticipantID: ConnectionQuality.Link] = [:]
    ) {
        if projection.players.isEmpty {
            add("No players yet.")
            return
        }
        add("Players (\(projection.players.count)):")
        for (offset, player) in projection.players.enumerated() {
            let number = numbered && offset < 9 ? "\(offset + 1). " : "  "
            let away = player.isConnected ? "" : "  (offline)"
            let trip = player.isConnected ? links[player.playerId]?.roundTripText.map { "  · \($0)" } ?? "" : ""
            add("  \(number)\(player.name)  \(player.points) p\(away)\(trip)")
        }
    }

    mutating func clue(_ state: ConsoleState, now: Int64) {
        guard let projection = state.projection else { return }
        if projection.phase == .roundIntro || projection.clue == nil {
            add()
            centered("A new destination…")
            centered("Where are we going?")
            return
        }
        guard let clue = projection.clue else { return }
        add("Clue \(clue.levelIndex) of \(clue.totalLevels) · \(clue.levelPoints) points")
        add()
        wrap(clue.clueText, indent: 2, maxLines: 8)
        add()
        if let brake = projection.brake {
            // The answer's timer stands still while the host has paused; the deadline does not.
            let timer = projection.timers.first { $0.phase == .pausedForBrake }
            let left = Page.seconds(
                timer.map { state.millisecondsLeft(on: $0, now: now) }
                    ?? state.millisecondsLeft(until: brake.deadlineServerMs, now: now))
            let who = brake.brakeOwnerPlayerId == state.playerId ? "YOU" : state.name(of: brake.brakeOwnerPlayerId)
            add("■■ BRAKE! \(who) pulled the brake at \(brake.levelPoints) points · answering, \(left) left ■■")
        }
    }

    mutating func locked(_ state: ConsoleState, withText: Bool) {
        guard let projection = state.projection, !projection.lockedAnswers.isEmpty else { return }
        add("Locked answers:")
        for answer in projection.lockedAnswers {
            let text = withText ? answer.answerText.map { ": \($0)" } ?? "" : ""
            add("  \(state.name(of: answer.playerId)) at \(answer.lockedAtLevelPoints) p\(text)")
        }
    }

    mutating func reveal(_ state: ConsoleState) {
        guard let round = state.projection?.round, let destination = round.destination else { return }
        centered("The destination was")
        centered("\(destination.name.uppercased()), \(destination.country)")
        add()
        if let text = destination.revealText { wrap(text, indent: 2, maxLines: 4) }
        add()
        for result in round.results ?? [] {
            let verdict = result.isCorrect ? "right, +\(result.pointsAwarded)" : "wrong"
            add(
                "  \(state.name(of: result.playerId)): \(result.answerText) (at \(result.lockedAtLevelPoints) p) — \(verdict)"
            )
        }
        if round.results?.isEmpty ?? true { add("  Nobody locked an answer.") }
    }

    mutating func followup(_ state: ConsoleState, now: Int64, showAnswers: Bool) {
        guard let followup = state.projection?.followup else { return }
        let status =
            followup.isOpen
            ? "\(Page.seconds(state.millisecondsLeft(on: followup.timer, now: now))) left"
            : "closed"
        add("Followup \(followup.index) of \(followup.total) · \(status) · \(followup.answeredCount) answered")
        add()
        wrap(followup.questionText, indent: 2, maxLines: 5)
        for (offset, option) in (followup.options ?? []).enumerated() { add("    \(offset + 1). \(option)") }
        add()
        if let correct = followup.correctAnswer, showAnswers || followup.results != nil {
            add("Correct answer: \(correct)")
        }
        if showAnswers, followup.results == nil {
            for answer in followup.answers ?? [] { add("  \(state.name(of: answer.playerId)): \(answer.answerText)") }
        }
        for result in followup.results ?? [] {
            let verdict = result.isCorrect ? "right, +\(result.pointsAwarded)" : "wrong"
            add("  \(state.name(of: result.playerId)): \(result.answerText ?? "no answer") — \(verdict)")
        }
    }

    /// The scoreboard between destinations, under its title.
    mutating func scoreboard(_ standings: [Standing], you: ParticipantID? = nil) {
        centered("Scoreboard")
        add()
        self.standings(standings, you: you)
    }

    mutating func standings(_ standings: [Standing], you: ParticipantID? = nil) {
        var place = 0
        var previous: Int?
        for (offset, standing) in standings.enumerated() {
            if standing.points != previous { place = offset + 1 }
            previous = standing.points
            let marker = standing.playerId == you ? " ← you" : ""
            add("  \(place). \(Page.pad(standing.name, 20)) \(standing.points) p\(marker)")
        }
    }

    mutating func finale(_ state: ConsoleState) {
        guard let projection = state.projection else { return }
        guard let results = projection.finalResults else {
            centered("Game over")
            add()
            standings(projection.scoreboard, you: state.playerId)
            return
        }
        if results.isTie {
            let names = results.tieWinners.map { state.name(of: $0) }.joined(separator: " and ")
            centered("A shared win: \(names)!")
        } else if let winner = results.winnerPlayerId {
            centered("The winner is \(state.name(of: winner))!")
        } else {
            centered("Game over")
        }
        add()
        standings(results.standingsFull, you: state.playerId)
    }
}

extension Projection {
    /// A kiosk's game (autoAdvance, never a host), which the box starts once players are here; the
    /// web pages tell it the same way.
    var startsByItself: Bool { !hasHost && settings.autoAdvance }
}
