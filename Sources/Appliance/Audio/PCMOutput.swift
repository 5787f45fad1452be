import CALSA
import Foundation

/// An ALSA playback device opened for 48 kHz, 16-bit stereo. Owns the PCM handle and closes it in
/// `deinit`; every alsa-lib return code becomes an `AudioError` in one place.
final class PCMOutput {
    struct AudioError: Error, CustomStringConvertible {
        var operation: String
        var code: Int32

        var description: String { "\(operation): \(String(cString: snd_strerror(code)))" }
    }

    static let channels = 2
    /// How much audio the device holds: enough to ride out a busy moment, little enough for the
    /// brake to sound at once.
    static let latencyMicroseconds: UInt32 = 80_000

    let device: String
    private var handle: OpaquePointer?

    init(device: String) throws(AudioError) {
        self.device = device
        tripto_alsa_silence_errors()
        var pcm: OpaquePointer?
        try Self.check("open \(device)", snd_pcm_open(&pcm, device, SND_PCM_STREAM_PLAYBACK, 0))
        handle = pcm
        try Self.check(
            "configure \(device)",
            snd_pcm_set_params(
                pcm, SND_PCM_FORMAT_S16_LE, SND_PCM_ACCESS_RW_INTERLEAVED, UInt32(Self.channels), UInt32(Sound.rate), 1,
                Self.latencyMicroseconds))
    }

    deinit {
        if let handle {
            snd_pcm_drop(handle)
            snd_pcm_close(handle)
        }
    }

    @discardableResult
    private static func check(_ operation: String, _ code: Int32) throws(AudioError) -> Int32 {
        guard code >= 0 else { throw AudioError(operation: operation, code: code) }
        return code
    }

    /// Writes interleaved frames, recovering from an underrun or a suspend on the way. Blocks while
    /// a real device's buffer is full; throws only when the device is gone or broken.
    func write(_ samples: [Int16]) throws(AudioError) {
        guard let handle else { return }
        var offset = 0
        let frames = samples.count / Self.channels
        while offset < frames {
            let written = samples.withUnsafeBufferPointer { buffer in
                snd_pcm_writei(
                    handle, buffer.baseAddress! + offset * Self.channels, snd_pcm_uframes_t(frames - offset))
            }
            if written >= 0 {
                offset += Int(written)
                continue
            }
            // -EPIPE (underrun) and -ESTRPIPE (suspended) are recoverable; anything else is not.
            try Self.check("write to \(device)", snd_pcm_recover(handle, Int32(written), 1))
        }
    }

    /// Frames the device can take now without blocking.
    func available() -> Int {
        guard let handle else { return 0 }
        return Int(snd_pcm_avail_update(handle))
    }

    /// Frames written but not yet heard.
    func delay() -> Int {
        guard let handle else { return 0 }
        var frames: snd_pcm_sframes_t = 0
        return snd_pcm_delay(handle, &frames) >= 0 ? Int(frames) : 0
    }

    /// The device's buffer size in frames.
    func bufferFrames() -> Int {
        guard let handle else { return 0 }
        var buffer: snd_pcm_uframes_t = 0
        var period: snd_pcm_uframes_t = 0
        return snd_pcm_get_params(handle, &buffer, &period) >= 0 ? Int(buffer) : 0
    }
}
