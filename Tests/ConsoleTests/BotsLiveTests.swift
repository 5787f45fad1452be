import Core
import Foundation
import Synchronization
import Testing

@testable import Console

/// What a host hears on its socket: every message, for the test to wait on.
final class HostEar: Sendable {
    private final class Heard: Sendable {
        let messages = Mutex<[ServerMessage]>([])
    }

    let link: Link
    private let heard = Heard()
    private let reader: Task<Void, Never>
    private let runner: Task<Void, Never>

    init(url: String, token: String) {
        let link = Link(url: url, token: token)
        let heard = self.heard
        self.link = link
        runner = Task { await link.run() }
        reader = Task {
            for await event in link.events {
                if case .message(let message) = event { heard.messages.withLock { $0.append(message) } }
            }
        }
    }

    var messages: [ServerMessage] { heard.messages.withLock { $0 } }

    /// The newest projection the host has.
    var projection: Projection? {
        messages.reversed().lazy.compactMap { message -> Projection? in
            switch message.event {
            case .stateSnapshot(let projection): projection
            case .welcome(let welcome): welcome.projection
            default: nil
            }
        }.first
    }

    /// Waits until `done` holds of what has been heard; fails after `seconds`.
    @discardableResult
    func wait<Value>(_ what: String, seconds: Double = 10, _ done: ([ServerMessage]) -> Value?) async throws -> Value {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if let value = done(messages) { return value }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw LiveFailure("the host did not see \(what) within \(seconds) s")
    }

    func stop() {
        runner.cancel()
        reader.cancel()
    }
}

/// `tripto-console bots` against a live box, with a host listening on its own socket.
@Suite("console bots against a live box", .serialized, .timeLimit(.minutes(2)))
struct BotsLiveTests {
    @Test(
        "three bots lagged 40±10 ms join, the box measures their lag and clocks, a bot's brake is accepted; Ctrl-C leaves"
    )
    func laggedCrowd() async throws {
        let box = try await LiveBox.started()
        let session = try await box.session(settings: LiveConsoleTests.quickGame)
        let api = BoxAPI(baseURL: box.baseURL)
        let seat = try await api.join(code: session.code, as: .host, name: nil)
        let host = HostEar(url: api.webSocketURL, token: seat.token)
        defer { host.stop() }
        try await host.wait("its welcome") { _ in host.projection }

        let packs = BotTests.packs
        let bots = try Spawned(
            LiveBox.console,
            [
                "bots", "3", "--code", session.code.lowercased(), "--url", box.baseURL, "--lag", "40:10", "--skill",
                "1",
                "--packs", packs, "--seed", "7",
            ])
        let botIds = try await host.wait("three bots in the lobby") { _ -> Set<ParticipantID>? in
            guard let players = host.projection?.players, players.count == 3,
                players.allSatisfy({ $0.isConnected && $0.name.hasPrefix("Bot ") })
            else { return nil }
            return Set(players.map(\.playerId))
        }
        #expect(Set(host.projection?.players.map(\.name) ?? []) == ["Bot Astrid", "Bot Sven", "Bot Ingrid"])

        // The game; the host moves on to the next clue until a bot pulls.
        host.link.send(.hostStartGame)
        var accepted: BrakeAccepted?
        for _ in 0..<5 {
            accepted = try? await host.wait("a brake", seconds: 4) { messages in
                messages.lazy.compactMap { message -> BrakeAccepted? in
                    if case .brakeAccepted(let brake) = message.event { return brake }
                    return nil
                }.first
            }
            if accepted != nil { break }
            host.link.send(.hostNextClue)
        }
        let brake = try #require(accepted, "no bot pulled the brake: \(bots.output)")
        #expect(botIds.contains(brake.brakeOwnerPlayerId))
        // Judged by when it was pressed: earlier than it arrived, by about the lag.
        #expect((brake.compensatedMs ?? 0) > 0, "\(brake)")
        #expect(brake.judgedAtServerMs != nil)

        // Its owner answers (a destination of the packs, right or wrong).
        let answer = try await host.wait("the brake's answer", seconds: 15) { messages in
            messages.lazy.compactMap { message -> String? in
                if case .brakeAnswerLocked(let locked) = message.event, locked.playerId == brake.brakeOwnerPlayerId {
                    return locked.answerText
                }
                return nil
            }.first
        }
        let names = try BotAtlas.load(folder: packs).atlas.packs.flatMap(\.destinations).map(\.name)
        #expect(names.contains(answer), "\(answer)")

        // The box measured every bot's link: a round trip of both ways' lag, and a clock estimate.
        let quality = try await host.wait("CONNECTION_QUALITY for the three bots", seconds: 10) { messages in
            messages.lazy.compactMap { message -> ConnectionQuality? in
                guard case .connectionQuality(let quality) = message.event,
                    Set(quality.players.map(\.playerId)) == botIds, quality.players.allSatisfy({ $0.rttMs != nil })
                else { return nil }
                return quality
            }.first
        }
        for link in quality.players {
            let rtt = try #require(link.rttMs)
            #expect(rtt >= 2 * 40 - 20, "\(link)")
            #expect(link.clockOk, "\(link)")
            #expect(link.jitterMs != nil)
        }

        // Ctrl-C: every bot leaves the session, and the command ends with 130.
        bots.signal(SIGINT)
        let status = await bots.exitStatus(within: 10)
        #expect(status == 130, "\(bots.output)")
        try await host.wait("the three bots leave") { messages -> Bool? in
            let left = messages.compactMap { message -> ParticipantID? in
                if case .playerLeft(let left) = message.event { return left.playerId }
                return nil
            }
            return Set(left) == botIds ? true : nil
        }
        let output = bots.output
        #expect(output.contains("Bot Astrid joined"))
        #expect(output.contains("has the brake at \(brake.levelPoints) points"), "\(output)")
        #expect(output.contains("every bot has left"), "\(output)")
    }
}
