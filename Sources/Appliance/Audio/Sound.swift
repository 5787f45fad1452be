import Foundation

/// A sound ready for the mixer: 48 kHz stereo, interleaved floats in -1…1.
final class Sound: Sendable {
    static let rate = 48_000

    let samples: [Float]
    /// A music bed plays round and round until it is stopped; anything else plays once.
    let loops: Bool

    var frames: Int { samples.count / 2 }
    var milliseconds: Int { frames * 1000 / Self.rate }

    init(interleaved samples: [Float], loops: Bool = false) {
        self.samples = samples
        self.loops = loops
    }
}

/// Reading and writing the WAV files voice clips come in and the box's own sounds go out as.
enum WAVFile {
    struct Problem: Error, CustomStringConvertible {
        var description: String
    }

    /// Reads a PCM (8/16/24/32-bit) or 32-bit float WAV of one or two channels at any rate, and
    /// returns it as a 48 kHz stereo sound at the box's reference loudness.
    static func read(_ url: URL) throws -> Sound {
        let (rate, channels) = try samples(of: url)
        let resampled = channels.map { Resampler.resample($0, from: Double(rate), to: Double(Sound.rate)) }
        var samples = [Float](repeating: 0, count: (resampled.first?.count ?? 0) * 2)
        for index in 0..<samples.count / 2 {
            samples[2 * index] = resampled[0][index]
            samples[2 * index + 1] = resampled[resampled.count > 1 ? 1 : 0][index]
        }
        return Sound(interleaved: Loudness.normalised(samples))
    }

    /// The file's samples as they are: its rate, and one array per channel.
    static func samples(of url: URL) throws -> (rate: Int, channels: [[Float]]) {
        let bytes = [UInt8](try Data(contentsOf: url))
        guard bytes.count >= 12, bytes[0..<4] == [0x52, 0x49, 0x46, 0x46], bytes[8..<12] == [0x57, 0x41, 0x56, 0x45]
        else {
            throw Problem(description: "\(url.lastPathComponent) is not a WAV file")
        }
        func uint(_ at: Int, _ size: Int) -> Int {
            (0..<size).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) }
        }
        var format: (tag: Int, channels: Int, rate: Int, bits: Int)?
        var offset = 12
        while offset + 8 <= bytes.count {
            let id = String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
            let size = uint(offset + 4, 4)
            let body = offset + 8
            if id == "fmt ", body + 16 <= bytes.count {
                var tag = uint(body, 2)
                // WAVE_FORMAT_EXTENSIBLE names the real format in its sub-format.
                if tag == 0xFFFE, size >= 26, body + 26 <= bytes.count { tag = uint(body + 24, 2) }
                format = (tag, uint(body + 2, 2), uint(body + 4, 4), uint(body + 14, 2))
            } else if id == "data" {
                guard let format else { throw Problem(description: "\(url.lastPathComponent) has no format chunk") }
                // A stream that was never finished says 0 or 0xFFFFFFFF: take everything there is.
                let end = size == 0 || size == 0xFFFF_FFFF ? bytes.count : min(bytes.count, body + size)
                return (
                    format.rate, try decode(bytes, from: body, to: end, format: format, name: url.lastPathComponent)
                )
            }
            offset = body + size + (size % 2)
        }
        throw Problem(description: "\(url.lastPathComponent) has no audio data")
    }

    /// One array per channel.
    private static func decode(
        _ bytes: [UInt8], from start: Int, to end: Int, format: (tag: Int, channels: Int, rate: Int, bits: Int),
        name: String
    ) throws -> [[Float]] {
        let floatFormat = format.tag == 3
        guard format.tag == 1 || (floatFormat && format.bits == 32) else {
            throw Problem(description: "\(name): only PCM and float WAV files can be played")
        }
        guard (1...2).contains(format.channels), (8_000...192_000).contains(format.rate),
            [8, 16, 24, 32].contains(format.bits)
        else {
            throw Problem(description: "\(name): \(format.channels) channels at \(format.rate) Hz is not supported")
        }
        let width = format.bits / 8
        let frameSize = width * format.channels
        let count = (end - start) / frameSize
        var channels = Array(repeating: [Float](repeating: 0, count: count), count: format.channels)
        for frame in 0..<count {
            for channel in 0..<format.channels {
                let at = start + frame * frameSize + channel * width
                let value: Float
                switch width {
                case 1: value = (Float(bytes[at]) - 128) / 128
                case 2: value = Float(Int16(bitPattern: UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8)) / 32_768
                case 3:
                    let raw = Int32(
                        bitPattern: UInt32(bytes[at]) << 8 | UInt32(bytes[at + 1]) << 16 | UInt32(bytes[at + 2]) << 24)
                    value = Float(raw >> 8) / 8_388_608
                default:
                    let raw =
                        UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(
                            bytes[at + 3])
                        << 24
                    value = floatFormat ? Float(bitPattern: raw) : Float(Int32(bitPattern: raw)) / 2_147_483_648
                }
                channels[channel][frame] = value
            }
        }
        return channels
    }

    /// Writes a sound as a 16-bit stereo 48 kHz WAV (for listening to the box's own sounds).
    static func write(_ sound: Sound, to url: URL) throws {
        var data = Data()
        func put(_ value: Int, _ size: Int) {
            for byte in 0..<size { data.append(UInt8(truncatingIfNeeded: value >> (8 * byte))) }
        }
        let payload = sound.samples.count * 2
        data.append(contentsOf: Array("RIFF".utf8))
        put(36 + payload, 4)
        data.append(contentsOf: Array("WAVEfmt ".utf8))
        put(16, 4)
        put(1, 2)
        put(2, 2)
        put(Sound.rate, 4)
        put(Sound.rate * 4, 4)
        put(4, 2)
        put(16, 2)
        data.append(contentsOf: Array("data".utf8))
        put(payload, 4)
        let pcm = sound.samples.map { PCM16.sample($0).littleEndian }
        pcm.withUnsafeBytes { data.append(contentsOf: $0) }
        try data.write(to: url, options: .atomic)
    }
}

/// Floats to 16-bit samples, with a soft knee above -3 dBFS instead of hard clipping when the
/// layers add up.
enum PCM16 {
    static func sample(_ value: Float) -> Int16 {
        let knee: Float = 0.7
        var shaped = value
        let magnitude = abs(value)
        if magnitude > knee {
            let over = (magnitude - knee) / (1 - knee)
            shaped = (knee + (1 - knee) * over / (1 + over)) * (value < 0 ? -1 : 1)
        }
        return Int16((max(-1, min(1, shaped)) * 32_767).rounded())
    }
}
