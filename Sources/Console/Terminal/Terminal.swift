import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The terminal in full-screen mode: raw keys, the alternate screen, no cursor. Plain ANSI/VT100
/// sequences only, so it works on a Linux tty, in tmux and over ssh. `restore()` puts everything back
/// and is safe to call more than once, from a signal handler's queue too.
final class Terminal: @unchecked Sendable {
    private let lock = NSLock()
    private var original: termios?
    private var previous: [String] = []
    private var needsFullRedraw = true

    enum Failure: Error, CustomStringConvertible {
        case notATerminal
        var description: String { "tripto-console needs a terminal (stdin and stdout must be a tty)" }
    }

    /// Whether stdin and stdout are a terminal, which `enter` needs.
    static var isAvailable: Bool { isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1 }

    func enter() throws(Failure) {
        guard Self.isAvailable else { throw .notATerminal }
        var settings = termios()
        guard tcgetattr(STDIN_FILENO, &settings) == 0 else { throw .notATerminal }
        lock.withLock { original = settings }
        // Raw input: every key at once, no echo, and Ctrl-C as a key (the console leaves cleanly itself).
        settings.c_iflag &= ~tcflag_t(BRKINT | ICRNL | INPCK | ISTRIP | IXON)
        settings.c_lflag &= ~tcflag_t(ECHO | ICANON | IEXTEN | ISIG)
        settings.c_cflag |= tcflag_t(CS8)
        withUnsafeMutableBytes(of: &settings.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &settings)
        // Alternate screen, cursor hidden, screen cleared.
        write("\u{1B}[?1049h\u{1B}[?25l\u{1B}[2J")
    }

    func restore() {
        lock.withLock {
            guard var settings = original else { return }
            original = nil
            write("\u{1B}[0m\u{1B}[?25h\u{1B}[?1049l")
            tcsetattr(STDIN_FILENO, TCSAFLUSH, &settings)
        }
    }

    /// Columns and rows; 80×24 when the terminal does not say.
    static func size() -> (width: Int, height: Int) {
        var size = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0, size.ws_row > 0 else {
            return (80, 24)
        }
        return (Int(size.ws_col), Int(size.ws_row))
    }

    /// After a resize every line is drawn again on a cleared screen.
    func invalidate() {
        lock.withLock { needsFullRedraw = true }
    }

    /// Draws the lines that changed since the last frame, the first and last line in reverse video
    /// (the title and the help line). Each line is placed by its row, so nothing ever scrolls.
    func draw(_ lines: [String], width: Int) {
        lock.withLock {
            guard original != nil else { return }
            var output = needsFullRedraw ? "\u{1B}[0m\u{1B}[2J" : ""
            for (row, line) in lines.enumerated()
            where needsFullRedraw || previous.indices.contains(row) == false
                || previous[row] != line
            {
                output += "\u{1B}[\(row + 1);1H"
                if row == 0 || row == lines.count - 1 {
                    output += "\u{1B}[7m" + Page.pad(line, width) + "\u{1B}[0m"
                } else {
                    output += line + "\u{1B}[K"
                }
            }
            previous = lines
            needsFullRedraw = false
            write(output)
        }
    }

    private func write(_ text: String) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes {
                Glibc.write(STDOUT_FILENO, $0.baseAddress! + offset, $0.count - offset)
            }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return }
            offset += written
        }
    }
}
