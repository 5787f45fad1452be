import Core
import Foundation

/// Reads packs from disk: a path is a pack folder (holding pack.json) or a pack.json file itself.
enum PackFiles {
    static let fileName = "pack.json"

    /// The pack.json a path names.
    static func file(for path: String) -> String {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            return (path as NSString).appendingPathComponent(fileName)
        }
        return path
    }

    /// Reads and checks the pack a path names. `pack` is set only when it has no problem.
    static func load(_ path: String) -> (file: String, pack: Pack?, problems: [String]) {
        let file = file(for: path)
        guard let data = FileManager.default.contents(atPath: file) else {
            return (file, nil, ["\(file): cannot be read (no such file, or not a pack folder)"])
        }
        let (pack, problems) = PackValidator.validate(data: data, file: file)
        return (file, problems.isEmpty ? pack : nil, problems.map(\.description))
    }

    /// Validates every path, and the packs together (ids must be unique). Returns a report line per
    /// problem, a summary line per good pack, and whether everything passed.
    static func validate(_ paths: [String]) -> (lines: [String], ok: Bool) {
        var lines: [String] = []
        var problemCount = 0
        var valid: [(file: String, pack: Pack)] = []
        for path in paths {
            let (file, pack, problems) = load(path)
            lines += problems
            problemCount += problems.count
            if let pack {
                valid.append((file, pack))
                let claims = PackValidator.checkedClaims(pack)
                let share = claims.total == 0 ? 0 : claims.checked * 100 / claims.total
                lines.append(
                    "\(file): ok — \(pack.packId) (\(pack.language.rawValue)), \(pack.destinations.count) destinations, "
                        + "\(claims.checked) of \(claims.total) claims checked (\(share) %)")
                lines += PackValidator.advice(pack, file: file).map { "warning: \($0)" }
            }
        }
        let together = PackValidator.checkTogether(valid)
        lines += together.map(\.description)
        problemCount += together.count
        lines.append(
            problemCount == 0
                ? "\(paths.count) pack\(paths.count == 1 ? "" : "s") valid"
                : "\(problemCount) problem\(problemCount == 1 ? "" : "s") found")
        return (lines, problemCount == 0)
    }
}
