import Core
import Foundation
import Logging
import ServiceLifecycle

/// The box's own sound: the game's sound events, played through ALSA on a thread of their own.
///
/// Rooms hand events over with `play` and never wait: the audio thread takes them from an inbox,
/// turns each `startAtServerMs` into a sample frame and renders the mix a few tens of milliseconds
/// ahead of what is heard. Without a usable device the box warns once and the games go on silently;
/// the speaker keeps trying to open the device every few seconds (a TV switched on later).
///
/// One set of speakers serves one game: the session whose game started last (its intro) holds it,
/// and the other sessions' sounds are not played on the box.
final class Speaker: @unchecked Sendable {
    struct Options: Sendable {
        var device = "default"
        /// The composed beds and effects, shared with the TV pages.
        var shelf: SoundShelf
        var retrySeconds = 5.0
    }

    private let options: Options
    private let logger: Logger
    /// Told whether the device is open (`/healthz`).
    private let health: BoxHealth?
    private let lock = NSLock()
    private enum Arrival {
        /// `clockOffset`: how far the session's times run ahead of the box's clock
        /// (`SessionRoom.clockOffset`).
        case event(ServerEvent, clip: Sound?, clockOffset: Int64)
        /// The line being spoken ends (a line that cannot be played still ends the one before).
        case endLine
        /// Another game took the speaker: this one's music and voice make way.
        case makeWay
    }

    private var inbox: [Arrival] = []
    private var holder: String?
    private var running = true
    private var thread: Thread?
    private let finished = DispatchSemaphore(value: 0)
    /// Voice clips are read and resampled here, off both the rooms and the audio thread.
    private let loader = DispatchQueue(label: "tripto.speaker.loader", qos: .userInitiated)
    private var missingVoiceLogged: Set<String> = []
    /// Clips read ahead (`prepare`), by path; reading and resampling takes a moment a line should not wait for.
    private var prepared: [String: Sound] = [:]
    private let preparer = DispatchQueue(label: "tripto.speaker.preparer", qos: .utility)

    init(options: Options, health: BoxHealth? = nil, logger: Logger) {
        self.options = options
        self.health = health
        var logger = logger
        logger[metadataKey: "audio.device"] = "\(options.device)"
        self.logger = logger
    }

    func start() {
        let thread = Thread { [self] in
            run()
            finished.signal()
        }
        thread.name = "tripto-audio"
        thread.qualityOfService = .userInteractive
        self.thread = thread
        thread.start()
    }

    /// Stops the audio thread and closes the device.
    func stop() {
        lock.withLock { running = false }
        // The thread notices within a block; composing the sounds (first start) is not interrupted,
        // so the box does not wait for that.
        if thread != nil { _ = finished.wait(timeout: .now() + 2) }
        thread = nil
    }

    private var isRunning: Bool { lock.withLock { running } }

    // MARK: From the rooms

    /// A sound event of session `session`. `clip` is the pack file behind an AUDIO_PLAY; the
    /// event's times are the session's, `clockOffset` ahead of the box's clock.
    func play(_ event: ServerEvent, session: String, packId: String, clip: String?, clockOffset: Int64 = 0) {
        switch event {
        case .audioPlay(let play):
            let claims = play.kind == .intro
            guard takes(session, claiming: claims) else { return }
            guard let clip, FileManager.default.fileExists(atPath: clip) else {
                logMissingVoice(packId: packId, clipId: play.clipId)
                loader.async { [self] in enqueue(.endLine) }
                return
            }
            loader.async { [self] in
                do {
                    let sound = try lock.withLock { prepared[clip] } ?? WAVFile.read(URL(fileURLWithPath: clip))
                    enqueue(.event(event, clip: sound, clockOffset: clockOffset))
                } catch {
                    logger.warning("voice clip unreadable", metadata: ["clip": "\(clip)", "error": "\(error)"])
                    // It still ends the line before it, as a missing clip does.
                    enqueue(.endLine)
                }
            }
        case .audioStop, .musicSet, .musicStop, .musicGainSet, .sfxPlay:
            guard takes(session, claiming: false) else { return }
            // After a voice clip still loading, so a stop or a cue never overtakes the line before it.
            loader.async { [self] in enqueue(.event(event, clip: nil, clockOffset: clockOffset)) }
        default:
            return
        }
    }

    /// Reads the clips of a round ahead of their cues, in place of those of the round before.
    func prepare(_ clips: [String]) {
        preparer.async { [self] in
            var sounds: [String: Sound] = [:]
            for clip in clips where FileManager.default.fileExists(atPath: clip) {
                sounds[clip] = try? WAVFile.read(URL(fileURLWithPath: clip))
                // Lines already due play from what is ready so far.
                lock.withLock { prepared[clip] = sounds[clip] }
            }
            lock.withLock { prepared = sounds }
        }
    }

    /// Whether `session` holds the speaker; an intro (a game starting) takes it over, and any
    /// session may take a speaker nobody holds.
    private func takes(_ session: String, claiming: Bool) -> Bool {
        lock.withLock {
            if claiming || holder == nil {
                if let holder, holder != session { inbox.append(.makeWay) }
                holder = session
            }
            return holder == session
        }
    }

    private func enqueue(_ arrival: Arrival) {
        lock.withLock { inbox.append(arrival) }
    }

    private func logMissingVoice(packId: String, clipId: String) {
        let first = lock.withLock { missingVoiceLogged.insert(packId).inserted }
        guard first else { return }
        logger.warning(
            "voice clip missing: clues are shown but not read out (render them with `tripto pack render-voice`)",
            metadata: ["pack.id": "\(packId)", "clip.id": "\(clipId)"])
    }

    // MARK: The audio thread

    private func run() {
        var warned = false
        var library: SoundLibrary?
        while isRunning {
            let output: PCMOutput
            do {
                output = try PCMOutput(device: options.device)
            } catch {
                health?.report(.sound, "No sound: the box cannot open its sound device \(options.device) (\(error))")
                if !warned {
                    logger.warning(
                        "no sound output: the games go on silently", metadata: ["error": "\(error.description)"])
                    warned = true
                }
                drainInbox()
                pause(seconds: options.retrySeconds)
                continue
            }
            if library == nil {
                let started = Date()
                let (loaded, composed) = options.shelf.load()
                library = loaded
                logger.info(
                    composed ? "sounds composed" : "sounds loaded",
                    metadata: ["ms": "\(Int(Date().timeIntervalSince(started) * 1000))"])
            }
            health?.report(.sound, nil)
            if warned {
                logger.notice("sound output is back")
                warned = false
            }
            do {
                try play(through: output, library: library!)
                return
            } catch {
                health?.report(.sound, "No sound: the box's sound device \(options.device) failed (\(error))")
                logger.warning("sound output failed: the games go on silently", metadata: ["error": "\(error)"])
                warned = true
                pause(seconds: options.retrySeconds)
            }
        }
    }

    /// While there is no device, events are dropped: nothing stale plays when it comes back.
    private func drainInbox() { lock.withLock { inbox.removeAll() } }

    private func pause(seconds: Double) {
        let until = Date().addingTimeInterval(seconds)
        while isRunning, Date() < until { Thread.sleep(forTimeInterval: 0.05) }
    }

    /// Plays until the box stops (returns) or the device fails (throws).
    private func play(through output: PCMOutput, library: SoundLibrary) throws(PCMOutput.AudioError) {
        let block = 480
        var mixer = Mixer()
        var mix: [Float] = []
        var pcm = [Int16](repeating: 0, count: block * 2)
        // A device that takes a whole buffer at once and wants more (ALSA's file and null outputs)
        // does not keep time: the speaker keeps time by the clock instead.
        let buffer = max(block, output.bufferFrames())
        try output.write([Int16](repeating: 0, count: buffer * 2))
        let paced = output.available() < buffer / 2
        let startedAt = DispatchTime.now().uptimeNanoseconds
        // With clock pacing, device frame f is heard at epochServerMs + f / 48 ms.
        let epochServerMs = ServerClock.now()
        var written = Int64(buffer)
        let lead = Int64(Sound.rate / 20)
        logger.info(
            "sound output open",
            metadata: [
                "audio.epochServerMs": "\(epochServerMs)", "audio.paced": "\(paced)", "audio.bufferFrames": "\(buffer)",
            ])
        func heardFrames() -> Int64 {
            if paced { return written - Int64(output.delay()) }
            return Int64(DispatchTime.now().uptimeNanoseconds - startedAt) * Int64(Sound.rate) / 1_000_000_000
        }
        while isRunning {
            let arrivals = lock.withLock {
                defer { inbox.removeAll() }
                return inbox
            }
            if !arrivals.isEmpty {
                let heard = heardFrames()
                let now = ServerClock.now()
                for arrival in arrivals {
                    // In the session's time, which may run ahead of the box's clock.
                    let offset: Int64 = if case .event(_, _, let offset) = arrival { offset } else { 0 }
                    let sessionNow = now + offset
                    for (cue, at) in cues(for: arrival, library: library, now: sessionNow) {
                        // Mixer frames count from the first frame written after the silent fill.
                        mixer.schedule(cue, at: heard + (at - sessionNow) * Int64(Sound.rate) / 1000 - Int64(buffer))
                    }
                }
            }
            if !paced {
                let target = heardFrames() + lead
                if written >= target {
                    Thread.sleep(forTimeInterval: 0.005)
                    continue
                }
            }
            mixer.render(block, into: &mix)
            for index in 0..<pcm.count { pcm[index] = PCM16.sample(mix[index]) }
            try output.write(pcm)
            written += Int64(block)
        }
    }

    /// The mixer's cues for an arrival, each with the server time it is to be heard at.
    private func cues(for arrival: Arrival, library: SoundLibrary, now: Int64) -> [(Mixer.Cue, Int64)] {
        let event: ServerEvent
        let clip: Sound?
        switch arrival {
        case .endLine: return [(.endLine, now)]
        case .makeWay: return [(.stopMusic(fadeMs: 300), now), (.stopVoice, now)]
        case .event(let sent, let sound, _):
            event = sent
            clip = sound
        }
        switch event {
        case .audioPlay(let play):
            return clip.map { [(.voice($0), play.startAtServerMs)] } ?? []
        case .audioStop:
            return [(.stopVoice, now)]
        case .musicSet(let set):
            return library[id: set.trackId].map { [(.music($0, gainDb: set.gainDb), set.startAtServerMs)] } ?? []
        case .musicStop(let stop):
            return [(.stopMusic(fadeMs: stop.fadeOutMs), now)]
        case .musicGainSet(let gain):
            return [(.musicGain(gain.gainDb), now)]
        case .sfxPlay(let sfx):
            return library[id: sfx.sfxId].map { [(.effect($0), sfx.startAtServerMs)] } ?? []
        default:
            return []
        }
    }
}

/// Runs the speaker for as long as the box runs.
struct SpeakerService: Service {
    let speaker: Speaker

    func run() async throws {
        speaker.start()
        try? await gracefulShutdown()
        speaker.stop()
    }
}

extension ServerEvent {
    /// Whether the event is one the room's sound source plays.
    var isSound: Bool {
        switch self {
        case .audioPlay, .audioStop, .musicSet, .musicStop, .musicGainSet, .sfxPlay: true
        default: false
        }
    }
}
