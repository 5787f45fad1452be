import Core
import Foundation
import Testing

/// What a page needs to redraw any screen from one snapshot (after a reload): the reveal line and the
/// scored answers once revealed, who answered a followup (host only), and its results once out.
@Suite("Projection")
struct ProjectionTests {
    @Test("reveal text and destination results appear for everyone only at the reveal")
    func revealParts() throws {
        var table = try Table()
        try table.start()
        try table.host(.nextClue)
        try table.player(0, .brakePull())
        try table.player(0, .brakeAnswer(answerText: "Zdestname1"))
        let before = table.game.projection(for: .player, participant: table.players[1], now: table.now)
        #expect(before.round?.destination == nil && before.round?.results == nil)
        // On the wire the secret destination is there as null, as the contract's shape has it.
        let round = String(decoding: try JSONEncoder().encode(before.round), as: UTF8.self)
        #expect(round.contains(#""destination":null"#) && !round.contains("results"), "\(round)")
        #expect(
            table.game.projection(for: .host, participant: table.host, now: table.now).round?.destination?
                .revealText != nil)

        try table.host(.forceReveal)
        for role in [Role.tv, .player] {
            let view = table.game.projection(for: role, participant: table.players[1], now: table.now)
            #expect(view.round?.destination?.revealText == Fixture.secretDestination(1).revealText)
            #expect(view.round?.destination?.sources == nil)
            let result = try #require(view.round?.results?.first)
            #expect(result.playerId == table.players[0] && result.isCorrect && result.pointsAwarded == 10)
        }
    }

    @Test("followup answers go to the host only; results to everyone once the question closes")
    func followupParts() throws {
        var table = try Table()
        try table.start()
        try table.host(.forceReveal)
        try table.host(.next)
        try table.player(1, .followupAnswer(index: 1, answerText: "a guess"))

        let host = table.game.projection(for: .host, participant: table.host, now: table.now)
        #expect(host.followup?.answers?.map(\.playerId) == [table.players[1]])
        #expect(host.followup?.answers?.first?.answerText == "a guess")
        for role in [Role.tv, .player] {
            let view = table.game.projection(for: role, participant: table.players[1], now: table.now)
            #expect(view.followup?.answers == nil && view.followup?.results == nil)
            #expect(view.followup?.answeredCount == 1)
        }

        try table.host(.next)
        let player = table.game.projection(for: .player, participant: table.players[0], now: table.now)
        let results = try #require(player.followup?.results)
        #expect(results.count == table.players.count)
        #expect(results.first { $0.playerId == table.players[1] }?.answerText == "a guess")
        #expect(results.first { $0.playerId == table.players[0] }?.answerText == nil)
    }
}
