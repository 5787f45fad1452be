import Core
import Dispatch
import Foundation
import Synchronization

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
        /// Closed for good before the box ever welcomed this seat: a kept token it no longer knows.
        case turnedAway(ConsoleError)
    }

    private enum Input: Sendable {
        /// Keys, and when they were read on the link's clock (a brake pull's `atClientMs`).
        case keys([UInt8], at: Int64)
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
        // Stamped as they are read, on the clock the link's probe echoes read: the pull says when the key
        // was pressed, not when this loop got to it.
        let clock = link.clock
        let keyboard = KeyReader { feed.yield($0.isEmpty ? .hangup : .keys($0, at: clock.now())) }
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
            case .keys(let bytes, let pressedAt):
                if endedAt != nil { return .sessionEnded(reason: state.endedReason ?? "ended") }
                for key in Key.decode(bytes) {
                    switch state.press(key, at: pressedAt) {
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
            case .link(.closed(let code, let revoked)):
                if code == Int(SocketClose.sessionEnded.code) || state.endedReason != nil {
                    state.endedReason = state.endedReason ?? "ended"
                } else {
                    let error = ConsoleError.closed(revoked: revoked)
                    return state.projection == nil ? .turnedAway(error) : .closed(error)
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

/// Reads the keyboard on its own thread, handing each chunk of bytes over, and an empty chunk once
/// the terminal is gone. `stop` ends the thread at once, through a pipe it waits on with the
/// keyboard: a console that plays seat after seat (`kiosk`) starts one reader per seat, and neither
/// keeps a thread nor loses the next key to a reader that has stopped.
final class KeyReader: Sendable {
    /// The ends of the pipe that wakes the thread: read, write. The thread closes the read end once
    /// `stop` has woken it; after the terminal went away it leaves it open, so that `stop` never
    /// writes into a pipe nobody can read (SIGPIPE).
    private let wake: (Int32, Int32)
    private let stopped = Atomic<Bool>(false)

    init(reading input: Int32 = STDIN_FILENO, _ deliver: @escaping @Sendable ([UInt8]) -> Void) {
        var ends: [Int32] = [-1, -1]
        if pipe(&ends) != 0 { ends = [-1, -1] }
        let wake = (ends[0], ends[1])
        self.wake = wake
        let thread = Thread {
            var buffer = [UInt8](repeating: 0, count: 256)
            var watched = [
                pollfd(fd: input, events: Int16(POLLIN), revents: 0),
                pollfd(fd: wake.0, events: Int16(POLLIN), revents: 0),
            ]
            while true {
                guard poll(&watched, nfds_t(watched.count), -1) >= 0 || errno == EINTR else { return }
                if watched[1].revents != 0 {
                    close(wake.0)
                    return
                }
                guard watched[0].revents != 0 else { continue }
                let count = read(input, &buffer, buffer.count)
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

    /// Ends the thread; once, however often it is called.
    func stop() {
        guard wake.1 >= 0, !stopped.exchange(true, ordering: .relaxed) else { return }
        var byte: UInt8 = 1
        _ = write(wake.1, &byte, 1)
        close(wake.1)
    }
}
