import Core
import Dispatch
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// One seat played at the terminal: keys, the box's messages, the clock and resizes go through one
/// loop that owns the `ConsoleState`, so nothing in it needs a lock.
enum Play {
    enum Outcome: Sendable, Equatable {
        /// The person left: Ctrl-C (130) or q (0).
        case left(status: Int32)
        case sessionEnded(reason: String)
        case closed(ConsoleError)
    }

    private enum Input: Sendable {
        case keys([UInt8])
        /// The terminal is gone (stdin at its end): a closed ssh session or tmux pane.
        case hangup
        case link(LinkEvent)
        case tick
        case resize
    }

    static func run(seat: Seat, api: BoxAPI, terminal: Terminal) async -> Outcome {
        let (inputs, feed) = AsyncStream.makeStream(of: Input.self)
        let link = Link(url: api.webSocketURL, token: seat.token)
        let linkTask = Task {
            await link.run()
        }
        let forward = Task {
            for await event in link.events { feed.yield(.link(event)) }
        }
        let ticks = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(250))
                feed.yield(.tick)
            }
        }
        let resize = DispatchSource.makeSignalSource(signal: SIGWINCH, queue: .global())
        resize.setEventHandler { feed.yield(.resize) }
        resize.resume()
        let keyboard = KeyReader { feed.yield($0.isEmpty ? .hangup : .keys($0)) }
        defer {
            keyboard.stop()
            resize.cancel()
            linkTask.cancel()
            forward.cancel()
            ticks.cancel()
        }

        var state = ConsoleState(role: seat.role, joinCode: seat.joinCode, playerId: seat.playerId)
        var endedAt: Int64?
        func now() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }
        func draw() {
            let size = Terminal.size()
            terminal.draw(Screen.render(state, width: size.width, height: size.height, now: now()), width: size.width)
        }
        draw()
        for await input in inputs {
            switch input {
            case .keys(let bytes):
                if endedAt != nil { return .sessionEnded(reason: state.endedReason ?? "ended") }
                for key in Key.decode(bytes) {
                    switch state.press(key) {
                    case .send(let message): link.send(message)
                    case .quit: return .left(status: key == .interrupt ? 130 : 0)
                    case nil: break
                    }
                }
            case .hangup:
                return .left(status: 129)
            case .link(.message(let message)):
                state.receive(message, now: now())
            case .link(.offline(let attempt)):
                state.link = .offline(attempt: attempt)
            case .link(.closed(let code)):
                if code == 1000 || state.endedReason != nil {
                    state.endedReason = state.endedReason ?? "ended"
                } else {
                    return .closed(.closed(code: code))
                }
            case .tick:
                // The ended screen stays a moment so it can be read, then the console leaves by itself.
                if let endedAt, now() - endedAt > 2500 { return .sessionEnded(reason: state.endedReason ?? "ended") }
            case .resize:
                terminal.invalidate()
            }
            if state.endedReason != nil, endedAt == nil { endedAt = now() }
            draw()
        }
        return .left(status: 0)
    }
}

/// Reads the keyboard on its own thread (a blocking `read`), handing each chunk of bytes over, and
/// an empty chunk once the terminal is gone.
final class KeyReader: @unchecked Sendable {
    private let stopped = NSLock()
    private var isStopped = false

    init(_ deliver: @escaping @Sendable ([UInt8]) -> Void) {
        let thread = Thread { [self] in
            var buffer = [UInt8](repeating: 0, count: 256)
            while !stopped.withLock({ isStopped }) {
                let count = read(STDIN_FILENO, &buffer, buffer.count)
                if count > 0 {
                    deliver(Array(buffer[0..<count]))
                } else if count == 0 || errno != EINTR {
                    deliver([])
                    return
                }
            }
        }
        thread.start()
    }

    func stop() {
        stopped.withLock { isStopped = true }
    }
}
