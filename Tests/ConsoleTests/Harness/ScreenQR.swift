import Foundation

/// Reads the QR code off a captured terminal screen, as a phone camera would read it off the TV:
/// each character is two pixels stacked (lit or not), the picture goes into a PBM file, zbarimg reads it.
enum ScreenQR {
    /// What zbarimg decodes, or nil when it finds no code.
    static func decode(_ screen: [String]) throws -> String? {
        let rows = screen.map(Array.init)
        let isBlock: (Character) -> Bool = { "▀▄█".contains($0) }
        // The code is the block of lines holding half blocks; its columns are their leftmost and rightmost.
        let lines = rows.indices.filter { rows[$0].contains(where: isBlock) }
        guard let top = lines.first, let bottom = lines.last else { return nil }
        let columns = lines.flatMap { line in rows[line].indices.filter { isBlock(rows[line][$0]) } }
        guard let left = columns.min(), let right = columns.max() else { return nil }

        // A pixel is lit (light) or not; around the picture a light margin as on a real screen.
        let margin = 4
        let width = right - left + 1 + 2 * margin
        let height = 2 * (bottom - top + 1) + 2 * margin
        var lit = [[Bool]](repeating: [Bool](repeating: true, count: width), count: height)
        for line in top...bottom {
            for column in left...right {
                let character = column < rows[line].count ? rows[line][column] : " "
                let y = margin + 2 * (line - top)
                let x = margin + column - left
                lit[y][x] = character == "▀" || character == "█"
                lit[y + 1][x] = character == "▄" || character == "█"
            }
        }
        // PBM: 1 is black. Scaled up 4×, as a camera sees modules several pixels wide.
        let scale = 4
        var pbm = "P1\n\(width * scale) \(height * scale)\n"
        for row in lit {
            let line = row.map { $0 ? "0" : "1" }.flatMap { Array(repeating: $0, count: scale) }.joined()
            pbm += String(repeating: line + "\n", count: scale)
        }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("screen-\(UUID().uuidString).pbm")
        try pbm.write(to: file, atomically: true, encoding: .ascii)
        defer { try? FileManager.default.removeItem(at: file) }
        guard let text = try? Command.run("/usr/bin/zbarimg", ["-q", "--raw", file.path], errors: false) else {
            return nil
        }
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
