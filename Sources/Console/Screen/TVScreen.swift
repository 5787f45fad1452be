import Core
import QR

/// The TV: what everyone in the room sees. Shows only what the box sends a TV, so no secrets.
enum TVScreen {
    static func body(_ state: ConsoleState, into page: inout Page, now: Int64) {
        guard let projection = state.projection else { return }
        switch projection.phase {
        case .lobby: lobby(state, into: &page)
        case .preparingRound, .roundIntro, .clueLevel, .pausedForBrake:
            page.clue(state, now: now)
            page.locked(state, withText: false)
        case .revealDestination: page.reveal(state)
        case .followupQuestion: page.followup(state, now: now, showAnswers: false)
        case .scoreboard: page.scoreboard(projection.scoreboard)
        case .finalResults, .roundEnd: page.finale(state)
        }
    }

    /// Who starts the game, when it is not a host who is there (as the web TV says it): a kiosk's
    /// box starts it itself; otherwise someone must take the host seat first.
    static func hostNote(_ projection: Projection) -> String? {
        if projection.hasHost { return nil }
        if projection.startsByItself { return "The game starts by itself shortly after the first player joins." }
        return "No host yet — join as host with the code \(projection.joinCode)."
    }

    /// The join QR on the left, the code, the link and the players on the right; the link alone when
    /// the terminal is too small for the code to be drawn whole.
    static func lobby(_ state: ConsoleState, into page: inout Page) {
        guard let projection = state.projection else { return }
        let url = projection.joinUrl
        let qr = (try? QRCode(url, correction: .low))?.terminalLines(quietZone: 2) ?? []
        let qrWidth = qr.first?.count ?? 0
        let side = page.width - qrWidth - 2
        guard !qr.isEmpty, qr.count <= page.room, side >= 24 else {
            page.centered("Join at")
            page.wrap(url, indent: 2)
            page.add()
            page.centered("Code: \(projection.joinCode)")
            if let note = hostNote(projection) { page.wrap(note) }
            page.add("(make the terminal larger to show the QR code)")
            page.add()
            page.players(projection)
            return
        }
        var right: [String] = ["Scan to join, or open", ""]
        right += Page.wrap(url, width: side)
        right += ["", "Code: \(projection.joinCode)", ""]
        if let note = hostNote(projection) { right += Page.wrap(note, width: side) + [""] }
        var players = Page(width: side, height: max(1, qr.count - right.count))
        players.players(projection)
        right += players.lines
        for (index, line) in qr.enumerated() {
            page.add(line + "  " + (index < right.count ? right[index] : ""))
        }
    }
}
