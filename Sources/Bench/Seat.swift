import Core
import Foundation
import HummingbirdWSClient
import Logging
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
        var brakeLatencies: [Double] = []
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
        var closed = false
    }

    let role: Role
    let playerId: String
    let table: TableLedger
    let notes = Mutex(Notes())
    /// Wakes the host's script on every snapshot.
    let changes: AsyncStream<Void>
    private let changed: AsyncStream<Void>.Continuation
    private let outbox: AsyncStream<String>.Continuation
    private let outgoing: AsyncStream<String>
    private let welcome: AsyncStream<Void>.Continuation
    private let welcomed: AsyncStream<Void>
    private let strict: Bool

    init(role: Role, playerId: String, table: TableLedger, strict: Bool) {
        self.role = role
        self.playerId = playerId
        self.table = table
        self.strict = strict && role == .host
        (changes, changed) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        (outgoing, outbox) = AsyncStream.makeStream(of: String.self)
        (welcomed, welcome) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    func send(_ message: ClientMessage) {
        outbox.yield(String(decoding: message.encoded(), as: UTF8.self))
    }

    func close() {
        outbox.finish()
        changed.finish()
    }

    /// Wakes the script without a message (its own timeouts).
    func nudge() { changed.yield() }

    /// Connects, and returns once the server's WELCOME is in (or the attempt failed).
    func connect(url: String, token: String) async -> Bool {
        let outgoing = self.outgoing
        Task {
            var logger = Logger(label: "bench-seat")
            logger.logLevel = .critical
            let configuration = WebSocketClientConfiguration(maxFrameSize: 1 << 22, autoPing: .disabled)
            _ = try? await WebSocketClient.connect(
                url: url + "?token=" + token, configuration: configuration, logger: logger
            ) { inbound, outbound, _ in
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for await text in outgoing { try await outbound.write(.text(text)) }
                        try await outbound.close(.normalClosure, reason: nil)
                    }
                    // Frames, not messages: a message is a String, and making one checks all of its
                    // UTF-8 (a tenth of this generator's CPU with 15 KB snapshots), which the scan
                    // below does not need. Neither server splits a message into fragments, but a
                    // split one is put back together.
                    var pending: ByteBuffer?
                    for try await frame in inbound {
                        let at = WallClock.nowMs()
                        var data = frame.data
                        if frame.opcode == .continuation, var first = pending {
                            first.writeBuffer(&data)
                            data = first
                        } else if frame.opcode != .text {
                            continue
                        }
                        guard frame.fin else {
                            pending = data
                            continue
                        }
                        pending = nil
                        data.withUnsafeReadableBytes { self.hear($0, at: at) }
                    }
                    group.cancelAll()
                }
            }
            self.notes.withLock { $0.closed = true }
            self.welcome.finish()
            self.changed.finish()
        }
        for await _ in welcomed { return notes.withLock { $0.welcomed } }
        return false
    }

    private func hear(_ bytes: UnsafeRawBufferPointer, at: Double) {
        guard let heard = Heard(scanning: bytes) else {
            notes.withLock { $0.undecodable += 1 }
            return
        }
        if strict, (try? JSONDecoder().decode(ServerMessage.self, from: Data(bytes))) == nil {
            notes.withLock { $0.undecodable += 1 }
        }
        let latency = at - Double(heard.serverTimeMs)
        let payload = heard.payload
        var brakeFrom: Double?
        if heard.type == "BRAKE_ACCEPTED", let owner = payload?.brakeOwnerPlayerId {
            brakeFrom = table.pullSent(by: owner)
        }
        notes.withLock { notes in
            notes.latencies[heard.type, default: []].append(latency)
            if heard.serverTimeMs < notes.lastStamp { notes.stampsBack += 1 }
            notes.lastStamp = heard.serverTimeMs
            if Heard.tableWide.contains(heard.type) { notes.sequence.append(heard.type) }
            if let brakeFrom { notes.brakeLatencies.append(at - brakeFrom) }
            switch heard.type {
            case "WELCOME": notes.welcomed = true
            case "STATE_SNAPSHOT":
                let version = payload?.version ?? notes.version
                if version < notes.version { notes.versionsBack += 1 }
                notes.version = version
                notes.phase = payload?.phase ?? notes.phase
            case "ERROR": notes.errors[payload?.code ?? "?", default: 0] += 1
            default: break
            }
        }
        react(to: heard)
    }

    /// The script's players: brake when it is their turn, answer their own brake, answer every followup.
    private func react(to heard: Heard) {
        switch heard.type {
        case "WELCOME": welcome.yield()
        case "STATE_SNAPSHOT": if role == .host { changed.yield() }
        case "CLUE_PRESENT" where role == .player:
            if table.shouldPull(playerId, levelIndex: heard.payload?.levelIndex ?? 0) {
                table.notePull(by: playerId)
                send(.brakePull(.init(atClientMs: Int64(WallClock.nowMs()))))
            }
        case "BRAKE_ACCEPTED" where role == .player && heard.payload?.brakeOwnerPlayerId == playerId:
            send(.brakeAnswerSubmit(.init(answerText: "Stockholm")))
        case "FOLLOWUP_PRESENT" where role == .player:
            send(.followupAnswerSubmit(.init(index: heard.payload?.index ?? 1, answerText: "1912")))
        default: break
        }
    }
}
