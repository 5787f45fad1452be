import Foundation
import Testing

@testable import Appliance

/// The box's own beds and effects, and how clips are read: measured, since nobody listens in CI.
@Suite("sounds", .timeLimit(.minutes(5)))
struct SoundTests {
    @Test("sounds export writes every sound with credits.json; a file or a place it cannot write is said in words")
    func export() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tripto-sounds-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        let written = try PackCommandTests.run(["sounds", "export", folder.path])
        #expect(written.status == 0)
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        #expect(files.contains("credits.json"))
        #expect(files.filter { $0.hasSuffix(".wav") }.count == SoundLibrary.compose().credits.count)

        let file = folder.appendingPathComponent("credits.json").path
        let onFile = try PackCommandTests.run(["sounds", "export", file])
        #expect(onFile.status == 1)
        #expect(onFile.output == "tripto sounds export: \(file) is a file, not a folder\n")
        let nowhere = try PackCommandTests.run(["sounds", "export", "/proc/no-such/sounds"])
        #expect(nowhere.status == 1)
        #expect(
            nowhere.output
                == "tripto sounds export: cannot write the sounds into /proc/no-such/sounds: No such file or directory\n"
        )
    }

    @Test("every effect is composed the same each time, at the reference loudness, starting and ending in silence")
    func effects() {
        for (id, compose) in [
            ("brake", Effects.brake), ("lock_in", Effects.lockIn), ("reveal_sting", Effects.revealSting),
            ("sting_build", Effects.stingBuild), ("drumroll", Effects.drumroll),
            ("winner_fanfare", Effects.winnerFanfare),
        ] {
            let sound = compose()
            #expect(sound.samples == compose().samples, "\(id) is not deterministic")
            let level = Loudness.gatedLevel(sound.samples) ?? -100
            let peak = Loudness.peakDb(sound.samples)
            #expect(peak <= Loudness.peakCeilingDb + 0.01, "\(id) peaks at \(peak) dBFS")
            // At the reference unless the peak ceiling held it lower (a sharp hit).
            #expect(abs(level - Loudness.referenceDb) < 0.2 || peak > Loudness.peakCeilingDb - 0.01, "\(id): \(level)")
            #expect(level > -26, "\(id) is too quiet: \(level) dBFS")
            #expect(
                abs(sound.samples.first!) < 0.001 && abs(sound.samples.last!) < 0.001, "\(id) starts or ends in a click"
            )
        }
    }

    @Test("the music beds loop without a seam: the step across the loop point is like any other step")
    func loops() {
        for (id, bed) in [
            ("travel", TravelBed.compose()), ("followup", FollowupBed.compose()), ("finale", FinaleBed.compose()),
        ] {
            #expect(bed.loops)
            let samples = bed.samples
            let frames = bed.frames
            // Left channel steps over the whole loop, and the one from the last frame to the first.
            var steps: [Float] = []
            steps.reserveCapacity(frames)
            for index in 1..<frames { steps.append(abs(samples[2 * index] - samples[2 * (index - 1)])) }
            let seam = abs(samples[0] - samples[2 * (frames - 1)])
            let sorted = steps.sorted()
            let typical = sorted[Int(Double(sorted.count) * 0.999)]
            #expect(seam <= typical, "\(id): step at the loop point \(seam), 99.9th percentile \(typical)")
            // Music, not a drone: the level moves with the beat, and nothing clips.
            #expect(Loudness.peakDb(samples) <= Loudness.peakCeilingDb + 0.01)
            #expect(abs((Loudness.gatedLevel(samples) ?? -100) - Loudness.referenceDb) < 0.5)
            #expect(bed.milliseconds >= 15_000, "\(id) is a short loop")
        }
    }

    @Test("a 22,050 Hz mono clip is read as 48 kHz stereo: same length, same pitch, reference loudness")
    func readsClips() throws {
        let rate = 22_050
        let tone = (0..<rate).map { Float(sin(2 * Double.pi * 440 * Double($0) / Double(rate))) * 0.1 }
        var pcm = Data()
        func put(_ value: Int, _ size: Int) {
            for byte in 0..<size { pcm.append(UInt8(truncatingIfNeeded: value >> (8 * byte))) }
        }
        pcm.append(contentsOf: Array("RIFF".utf8))
        put(36 + rate * 2, 4)
        pcm.append(contentsOf: Array("WAVEfmt ".utf8))
        put(16, 4); put(1, 2); put(1, 2); put(rate, 4); put(rate * 2, 4); put(2, 2); put(16, 2)
        pcm.append(contentsOf: Array("data".utf8))
        put(rate * 2, 4)
        for sample in tone { put(Int(Int16(sample * 32_767)), 2) }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("tone-\(UUID().uuidString).wav")
        try pcm.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }

        let sound = try WAVFile.read(file)
        #expect(abs(sound.frames - 48_000) <= 1)
        #expect(abs((Loudness.gatedLevel(sound.samples) ?? -100) - Loudness.referenceDb) < 0.3)
        // 440 Hz: count rising zero crossings over the middle half second.
        let left = stride(from: 0, to: sound.samples.count, by: 2).map { sound.samples[$0] }
        let middle = left[12_000..<36_000]
        let crossings = zip(middle.dropFirst(), middle).filter { $0.1 < 0 && $0.0 >= 0 }.count
        #expect(abs(crossings - 220) <= 1)
        #expect(sound.samples[0] == sound.samples[1])

        let notWav = FileManager.default.temporaryDirectory.appendingPathComponent("not-\(UUID().uuidString).wav")
        try Data("hello".utf8).write(to: notWav)
        defer { try? FileManager.default.removeItem(at: notWav) }
        #expect(throws: WAVFile.Problem.self) { try WAVFile.read(notWav) }
    }
}
