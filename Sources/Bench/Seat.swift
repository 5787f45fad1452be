import Core
import Dispatch
import Foundation
import NIOCore
import Synchronization

/// One WebSocket client at a table (host, TV or player): it reacts to the game the way the script
/// says and keeps everything the report needs about what it heard.
final class Seat: Sendable {
    enum Role: String, Sendable {
        case host = "HOST"
        case tv = "TV"
        case player = "PLAYER"
    }

    /// What a seat heard, filled in by its reader.
    struct Notes: Sendable {
        var latencies: [String: [Double]] = [:]
        /// Every BRAKE_ACCEPTED heard; the time its pull was sent is known once its owner heard it.
        var brakesHeard: [(owner: String, stamp: Int64, at: Double)] = []
        /// When this player sent each of its pulls that no answer has come for yet, oldest first.
        /// The server answers every pull, in order: a BRAKE_REJECTED to this player, or a
        /// BRAKE_ACCEPTED naming it to everyone.
        var pullsUnanswered: [Double] = []
        /// Table-wide events in the order they came.
        var sequence: [String] = []
        var version = -1
        var phase = ""
        /// Snapshots whose version went down.
        var versionsBack = 0
        /// Messages stamped earlier than the one before: not an error (commands are stamped when
        /// they arrive, and run in the order they reach their session), but worth knowing.
        var stampsBack = 0
        var lastStamp: Int64 = 0
        var errors: [String: Int] = [:]
        var undecodable = 0
        var welcomed = false
    }

    let role: Role
    let playerId: String
    let table: TableLedger
    let notes = Mutex(Notes())
    /// Wakes the host's script on every snapshot.
    let changes: AsyncStream<Void>
    private let changed: AsyncStream<Void>.Continuation
    private let welcome: AsyncStream<Void>.Continuation
    private let welcomed: AsyncStream<Void>
    private let strict: Bool
    /// The seat's channel once upgraded, and whether a close frame went out on it.
    private let socket = Mutex<(channel: Channel?, closing: Bool)>((nil, false))
    /// Hangs up if no WELCOME comes in time; cancelled once it has come, so that thousands of
    /// seats leave no timers behind to fire in the next scenario.
    private let welcomeTimeout = Mutex<Scheduled<Void>?>(nil)
    /// The hosts' full decoding of every message, off the event loops so that it delays no receipt.
    /// It is held while the tables play (`holdChecks`): on a machine of two cores it took the CPU
    /// that the server and the other clients share, in the middle of the rushes it measures.
    private static let checks = DispatchQueue(label: "bench-checks")
    private static let decoder = JSONDecoder()

    init(role: Role, playerId: String, table: TableLedger, strict: Bool) {
        self.role = role
        self.playerId = playerId
        self.table = table
        self.strict = strict && role == .host
        (changes, changed) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        (welcomed, welcome) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    func send(_ message: ClientMessage) {
        guard let channel = socket.withLock({ $0.closing ? nil : $0.channel }) else { return }
        let text = channel.allocator.buffer(bytes: message.encoded())
        channel.writeAndFlush(SeatSocket.frame(.text, text), promise: nil)
    }

    /// The answer to this player's accepted pull, after the time the script gives a player to type it.
    private func answerBrake() {
        let answer = ClientMessage.brakeAnswerSubmit(.init(answerText: "Stockholm"))
        guard table.answerMs > 0, let channel = socket.withLock({ $0.channel }) else { return send(answer) }
        channel.eventLoop.scheduleTask(in: .milliseconds(Int64(table.answerMs))) { self.send(answer) }
    }

    /// Starts the closing handshake (the channel closes when the server answers it).
    func close() {
        changed.finish()
        guard startClosing(), let channel = socket.withLock({ $0.channel }) else { return }
        var reason = channel.allocator.buffer(capacity: 2)
        reason.write(webSocketErrorCode: .normalClosure)
        channel.writeAndFlush(SeatSocket.frame(.connectionClose, reason), promise: nil)
    }

    /// True for the first caller only: a close frame goes out once.
    func startClosing() -> Bool {
        socket.withLock { socket in
            defer { socket.closing = true }
            return !socket.closing
        }
    }

    /// Wakes the script without a message (its own timeouts).
    func nudge() { changed.yield() }

    /// Connects, and returns once the server's WELCOME is in (or the attempt failed).
    func connect(port: Int, token: String, patches: Bool) async -> Bool {
        guard (try? await SeatSocket.connect(self, port: port, token: token, patches: patches)) == true else {
            disconnected()
            return false
        }
        for await _ in welcomed { return notes.withLock { $0.welcomed } }
        return false
    }

    func attach(_ channel: Channel) { socket.withLock { $0.channel = channel } }

    func awaitWelcome(_ timeout: Scheduled<Void>) { welcomeTimeout.withLock { $0 = timeout } }

    private func stopWelcomeTimeout() {
        welcomeTimeout.withLock { timeout in
            timeout?.cancel()
            timeout = nil
        }
    }

    var isWelcomed: Bool { notes.withLock { $0.welcomed } }

    func disconnected() {
        stopWelcomeTimeout()
        welcome.finish()
        changed.finish()
    }

    /// Keeps the checks of the host messages heard from now on for `releaseChecks`.
    static func holdChecks() { checks.suspend() }

    /// Runs the checks held since `holdChecks`, and those to come.
    static func releaseChecks() { checks.resume() }

    /// Returns once every host message handed to the checks so far has been decoded.
    static func checksDone() async {
        await withCheckedContinuation { done in checks.async { done.resume() } }
    }

    /// One whole message, `at` the moment it came out of the frame decoder.
    func hear(_ bytes: UnsafeRawBufferPointer, at: Double) {
        guard let heard = Heard(scanning: bytes) else {
            notes.withLock { $0.undecodable += 1 }
            return
        }
        if strict {
            let data = Data(bytes)
            Self.checks.async {
                if (try? Self.decoder.decode(ServerMessage.self, from: data)) == nil {
                    self.notes.withLock { $0.undecodable += 1 }
                }
            }
        }
        let latency = at - Double(heard.serverTimeMs)
        let payload = heard.payload
        notes.withLock { notes in
            notes.latencies[heard.type, default: []].append(latency)
            if heard.serverTimeMs < notes.lastStamp { notes.stampsBack += 1 }
            notes.lastStamp = heard.serverTimeMs
            if Heard.tableWide.contains(heard.type) { notes.sequence.append(heard.type) }
            switch heard.type {
            case "BRAKE_ACCEPTED":
                guard let owner = payload?.brakeOwnerPlayerId else { break }
                notes.brakesHeard.append((owner, heard.serverTimeMs, at))
                if owner == playerId, !notes.pullsUnanswered.isEmpty {
                    table.accepted(owner: owner, stamp: heard.serverTimeMs, sentAt: notes.pullsUnanswered.removeFirst())
                }
            case "BRAKE_REJECTED": if !notes.pullsUnanswered.isEmpty { notes.pullsUnanswered.removeFirst() }
            case "WELCOME": notes.welcomed = true
            case "STATE_SNAPSHOT", "STATE_PATCH":
                let version = payload?.version ?? notes.version
                if version < notes.version { notes.versionsBack += 1 }
                notes.version = version
                notes.phase = payload?.phase ?? notes.phase
            case "ERROR":
                notes.errors[payload?.code ?? "?", default: 0] += 1
                // A pull can go unanswered after an error (a lost save, a rate limit): the pulls
                // waiting can no longer be told apart, so no later brake is timed from them.
                notes.pullsUnanswered.removeAll()
            default: break
            }
        }
        react(to: heard)
    }

    /// The script's players: brake when it is their turn, answer their own brake, answer every followup.
    private func react(to heard: Heard) {
        switch heard.type {
        case "WELCOME":
            stopWelcomeTimeout()
            welcome.yield()
        case "CLOCK_PROBE" where role == .player:
            // Answered at once, from the clock that stamps the pulls, as the player page does.
            guard let probeId = heard.payload?.probeId else { break }
            send(.clockEcho(.init(probeId: probeId, clientTimeMs: Int64(WallClock.nowMs()))))
        case "STATE_SNAPSHOT", "STATE_PATCH": if role == .host { changed.yield() }
        case "CLUE_PRESENT" where role == .player:
            if table.shouldPull(playerId, levelIndex: heard.payload?.levelIndex ?? 0) {
                let now = WallClock.nowMs()
                notes.withLock { $0.pullsUnanswered.append(now) }
                send(.brakePull(.init(atClientMs: Int64(now), levelPoints: heard.payload?.levelPoints)))
            }
        case "BRAKE_ACCEPTED" where role == .player && heard.payload?.brakeOwnerPlayerId == playerId:
            answerBrake()
        case "FOLLOWUP_PRESENT" where role == .player:
            send(.followupAnswerSubmit(.init(index: heard.payload?.index ?? 1, answerText: "1912")))
        default: break
        }
    }
}
