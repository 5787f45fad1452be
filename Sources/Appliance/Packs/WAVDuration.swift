import Foundation

/// The length of a rendered clip, read from its WAV header; nil when the file is missing or not a WAV.
enum WAVDuration {
    static func milliseconds(ofFileAt path: String) -> Int64? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let header = try? handle.read(upToCount: 4096), header.count >= 44,
            header.prefix(4) == Data("RIFF".utf8), header[8..<12] == Data("WAVE".utf8)
        else { return nil }
        let bytes = [UInt8](header)
        func uint32(_ at: Int) -> UInt32 {
            UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24
        }
        var offset = 12
        var byteRate: UInt32 = 0
        while offset + 8 <= bytes.count {
            let size = Int(uint32(offset + 4))
            let chunk = String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
            if chunk == "fmt ", offset + 20 <= bytes.count { byteRate = uint32(offset + 16) }
            if chunk == "data" {
                guard byteRate > 0 else { return nil }
                let dataSize = UInt64(size == 0xFFFF_FFFF ? 0 : size)
                return Int64(dataSize * 1000 / UInt64(byteRate))
            }
            offset += 8 + size + (size % 2)
        }
        return nil
    }
}
