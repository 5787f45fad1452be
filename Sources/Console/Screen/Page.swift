/// A screenful of plain text being laid out: lines no wider than the screen, never more than it holds.
/// Width is counted in characters: the console draws only one-cell characters (letters, å ä ö, blocks).
struct Page {
    let width: Int
    let height: Int
    private(set) var lines: [String] = []

    init(width: Int, height: Int) {
        self.width = max(1, width)
        self.height = max(1, height)
    }

    var isFull: Bool { lines.count >= height }
    var room: Int { max(0, height - lines.count) }

    mutating func add(_ line: String = "") {
        guard !isFull else { return }
        lines.append(Self.fit(line, width))
    }

    /// A paragraph wrapped at word boundaries, with `indent` spaces before every line.
    mutating func wrap(_ text: String, indent: Int = 0, maxLines: Int = .max) {
        for line in Self.wrap(text, width: width - indent).prefix(maxLines) {
            add(String(repeating: " ", count: indent) + line)
        }
    }

    mutating func centered(_ text: String) {
        add(Self.center(text, width))
    }

    /// Exactly `height` lines: the page, blank lines, then `footer` at the bottom.
    func finished(footer: [String], height: Int) -> [String] {
        let height = max(1, height)
        let footer = footer.suffix(height).map { Self.fit($0, width) }
        let body = lines.prefix(height - footer.count)
        return Array(body) + Array(repeating: "", count: height - body.count - footer.count) + footer
    }

    static func fit(_ text: String, _ width: Int) -> String {
        let clean = String(text.map { $0.isNewline || $0 == "\t" ? " " : $0 })
        guard clean.count > width else { return clean }
        return width > 1 ? String(clean.prefix(width - 1)) + "…" : String(clean.prefix(width))
    }

    static func center(_ text: String, _ width: Int) -> String {
        let fitted = fit(text, width)
        return String(repeating: " ", count: (width - fitted.count) / 2) + fitted
    }

    static func pad(_ text: String, _ width: Int) -> String {
        let fitted = fit(text, width)
        return fitted + String(repeating: " ", count: width - fitted.count)
    }

    static func wrap(_ text: String, width: Int) -> [String] {
        let width = max(1, width)
        var lines: [String] = []
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var line = ""
            for word in paragraph.split(separator: " ") {
                var word = Substring(word)
                // A word longer than a line (a URL) is cut into line-sized pieces.
                while word.count > width {
                    if !line.isEmpty {
                        lines.append(line)
                        line = ""
                    }
                    lines.append(String(word.prefix(width)))
                    word = word.dropFirst(width)
                }
                if word.isEmpty { continue }
                if line.isEmpty {
                    line = String(word)
                } else if line.count + 1 + word.count <= width {
                    line += " " + word
                } else {
                    lines.append(line)
                    line = String(word)
                }
            }
            lines.append(line)
        }
        return lines
    }

    /// Whole seconds, rounded up: "3 s" shows until the last millisecond of the third second.
    static func seconds(_ milliseconds: Int64) -> String {
        "\((milliseconds + 999) / 1000) s"
    }
}
