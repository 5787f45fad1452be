import CQREncode
import Foundation

/// A QR code made by libqrencode: a square of dark and light modules.
public struct QRCode: Sendable {
    public let size: Int
    public let modules: [Bool]

    public enum Failure: Error {
        case encodingFailed(errno: Int32)
    }

    /// How much of the code may be damaged and still read.
    public enum Correction: Sendable {
        /// About 7 %: the smallest code, for a clean picture such as a terminal that must fit 80×24.
        case low
        /// About 15 %: readable off a TV across a room.
        case medium

        var level: QRecLevel {
            switch self {
            case .low: QR_ECLEVEL_L
            case .medium: QR_ECLEVEL_M
            }
        }
    }

    /// Byte mode, error correction level M unless told otherwise.
    public init(_ text: String, correction: Correction = .medium) throws(Failure) {
        guard let code = QRcode_encodeString(text, 0, correction.level, QR_MODE_8, 1) else {
            throw .encodingFailed(errno: errno)
        }
        defer { QRcode_free(code) }
        size = Int(code.pointee.width)
        // Bit 0 of each byte is the module's colour; the other bits describe its role.
        modules = (0..<size * size).map { code.pointee.data[$0] & 1 == 1 }
    }

    public func isDark(x: Int, y: Int) -> Bool {
        guard x >= 0, y >= 0, x < size, y < size else { return false }
        return modules[y * size + x]
    }

    /// An SVG with a four-module quiet zone; one path, so it scales crisply on any screen.
    public func svg(quietZone: Int = 4) -> String {
        let total = size + 2 * quietZone
        var path = ""
        for y in 0..<size {
            var x = 0
            while x < size {
                guard isDark(x: x, y: y) else {
                    x += 1
                    continue
                }
                let start = x
                while x < size && isDark(x: x, y: y) { x += 1 }
                path += "M\(start + quietZone) \(y + quietZone)h\(x - start)v1h-\(x - start)z"
            }
        }
        return """
            <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \(total) \(total)" shape-rendering="crispEdges">\
            <rect width="\(total)" height="\(total)" fill="#fff"/><path fill="#000" d="\(path)"/></svg>
            """
    }

    /// Two rows per line with half-block characters, dark modules drawn dark on a light background,
    /// for a terminal. Plain characters only, no colours.
    public func terminalText(quietZone: Int = 2) -> String {
        terminalLines(quietZone: quietZone).joined(separator: "\n")
    }

    /// The same picture, one string per terminal line: `size + 2 × quietZone` characters wide.
    /// A terminal draws text light on dark, so a light module is a lit half cell and a dark one is blank.
    public func terminalLines(quietZone: Int = 2) -> [String] {
        var lines: [String] = []
        for y in stride(from: -quietZone, to: size + quietZone, by: 2) {
            var line = ""
            for x in -quietZone..<(size + quietZone) {
                switch (isDark(x: x, y: y), isDark(x: x, y: y + 1)) {
                case (false, false): line += "█"
                case (true, false): line += "▄"
                case (false, true): line += "▀"
                case (true, true): line += " "
                }
            }
            lines.append(line)
        }
        return lines
    }
}
