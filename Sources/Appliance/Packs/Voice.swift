import Core
import Foundation

/// The box's speaking voice: espeak-ng, run once per clip. Deterministic, offline, about 10 ms a line.
struct Voice {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    let program: String
    let language: Language

    /// The settings a clip is spoken with; a clip made with other settings is rendered again.
    private var settings: [String] { ["-v", language.rawValue, "-s", "150"] }

    /// Renders every line whose clip is missing or was spoken from another text (or all with `force`).
    /// `voice/manifest.json` remembers what each clip says. Each clip is written to a temporary file
    /// and moved into place, so an interrupted run never leaves a half-written clip.
    func render(_ lines: [VoiceScript.Line], into folder: URL, force: Bool) throws -> (rendered: Int, kept: Int) {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let manifestFile = folder.appendingPathComponent("manifest.json")
        var manifest =
            (try? JSONDecoder().decode([String: String].self, from: Data(contentsOf: manifestFile))) ?? [:]
        var rendered = 0
        var kept = 0
        defer {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
            try? encoder.encode(manifest).write(to: manifestFile, options: .atomic)
        }
        for line in lines {
            let target = folder.appendingPathComponent("\(line.clip).wav")
            // The same SHA-256 hex the box keeps of tokens: what the clip was spoken from.
            let fingerprint = Secrets.hash((settings + [line.text]).joined(separator: "\u{0}"))
            if !force, manifest[line.clip] == fingerprint, FileManager.default.fileExists(atPath: target.path) {
                kept += 1
                continue
            }
            let partial = folder.appendingPathComponent(".\(line.clip).wav.partial")
            try speak(line.text, to: partial)
            _ = try? FileManager.default.removeItem(at: target)
            try FileManager.default.moveItem(at: partial, to: target)
            manifest[line.clip] = fingerprint
            rendered += 1
        }
        return (rendered, kept)
    }

    private func speak(_ text: String, to file: URL) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        // The text goes in on stdin, so a line starting with "-" is never read as an option.
        process.arguments = [program] + settings + ["-w", file.path, "--stdin"]
        let input = Pipe()
        let errors = Pipe()
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        do {
            try process.run()
        } catch {
            throw Failure(description: "cannot run \(program): \(error)")
        }
        // A program that exits at once (not installed) closes the pipe: that must be an error
        // reported by its exit status below, not a SIGPIPE that kills the box's tool.
        signal(SIGPIPE, SIG_IGN)
        try? input.fileHandleForWriting.write(contentsOf: Data(text.utf8))
        try? input.fileHandleForWriting.close()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            if process.terminationStatus == 127 {
                throw Failure(description: "\(program) is not installed (Debian/Ubuntu: apt-get install espeak-ng)")
            }
            throw Failure(
                description:
                    "\(program) failed with status \(process.terminationStatus): \(message.trimmingCharacters(in: .whitespacesAndNewlines))"
            )
        }
    }
}
