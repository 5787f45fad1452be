import Core
import Discovery
import Foundation
import GRDB
import Logging

/// `tripto doctor`'s checks: each looks at one thing a Saturday evening can go wrong on, and says
/// in plain words what it found and, when something needs attention, how to fix it.
struct Doctor {
    struct Options {
        var port: Int
        var dataDirectory: String
        var packsDirectory: String
        var audioDevice: String
        /// Play a short tone through the sound device.
        var tone: Bool
        /// How long to listen for announcements.
        var mdnsWait: Duration = .seconds(2)
    }

    struct Finding: Equatable {
        enum Verdict: Equatable {
            case ok
            /// Something needs attention: `tripto doctor` exits with 1.
            case attention
            /// Could not be checked here, and why; not counted against the box.
            case skipped
        }

        var verdict: Verdict
        var topic: String
        var detail: String
        var fix: String?
    }

    let options: Options

    func run() async -> [Finding] {
        let answer = Self.healthz(port: options.port)
        let announced = await mdns(answer)
        return [
            box(answer), sound(boxRunning: answer != nil), announced, network(), disk(), database(), packs(), espeak(),
            clock(), kioskScreen(),
        ]
    }

    // MARK: The checks

    /// The box on its port, and what its /healthz says is wrong.
    private func box(_ answer: Health?) -> Finding {
        guard let answer else {
            return Finding(
                verdict: .attention, topic: "The box",
                detail: "nothing that answers as a Tripto box on port \(options.port)",
                fix: "start it: systemctl start tripto (or tripto serve); see journalctl -u tripto for why it stopped")
        }
        guard answer.status == "ok" else {
            return Finding(
                verdict: .attention, topic: "The box",
                detail: "version \(answer.version) answers on port \(options.port), degraded: "
                    + answer.problems.map(\.message).joined(separator: "; "),
                fix: "see the other lines; /healthz says ok again once each part works")
        }
        return Finding(
            verdict: .ok, topic: "The box",
            detail: "version \(answer.version) answers on port \(options.port), \(answer.sessions) live session(s)")
    }

    private func sound(boxRunning: Bool) -> Finding {
        do {
            let output = try PCMOutput(device: options.audioDevice)
            if options.tone { try output.write(Self.tone()) }
            return Finding(
                verdict: .ok, topic: "Sound",
                detail: "the device \(options.audioDevice) opens" + (options.tone ? " and played a tone" : ""))
        } catch {
            // A running box holds the device; then its /healthz is what counts.
            if boxRunning, error.code == -EBUSY {
                return Finding(
                    verdict: .skipped, topic: "Sound",
                    detail:
                        "the device \(options.audioDevice) is in use, by the box itself (its line above says whether it plays)"
                )
            }
            return Finding(
                verdict: .attention, topic: "Sound", detail: "cannot open \(options.audioDevice): \(error)",
                fix:
                    "switch the TV or speaker on; `aplay -L` lists the devices: put another in /etc/default/tripto "
                    + "as TRIPTO_OPTS=\"--audio-device NAME\"")
        }
    }

    private func mdns(_ answer: Health?) async -> Finding {
        let boxes: [DiscoveredBox]
        do {
            boxes = try await Browser.browse(timeout: options.mdnsWait)
        } catch {
            return Finding(
                verdict: .attention, topic: "mDNS", detail: "cannot ask avahi-daemon: \(error)",
                fix: "apt install avahi-daemon; systemctl enable --now avahi-daemon (phones can still use the QR code)")
        }
        let here = boxes.filter { $0.url.hasSuffix(":\(options.port)") }
        if answer != nil, here.isEmpty {
            return Finding(
                verdict: .attention, topic: "mDNS",
                detail:
                    "avahi-daemon runs, but no box on port \(options.port) is announced (\(boxes.count) other box(es) seen)",
                fix: "the box announces itself unless started with --no-mdns; restart it: systemctl restart tripto")
        }
        return Finding(
            verdict: .ok, topic: "mDNS",
            detail: "avahi-daemon runs; announced: "
                + (boxes.isEmpty ? "no box" : boxes.map { "\($0.name) at \($0.url)" }.joined(separator: ", ")))
    }

    /// The address phones are given (in the QR code and links), and what kind of network it is on.
    private func network() -> Finding {
        guard let address = PublicAddress.lanIPv4() else {
            return Finding(
                verdict: .attention, topic: "Network", detail: "no network address besides loopback",
                fix: "connect the box to the router by cable or Wi-Fi; phones must be on the same network")
        }
        let octets = address.split(separator: ".").compactMap { Int($0) }
        if octets.count == 4, octets[0] == 169, octets[1] == 254 {
            return Finding(
                verdict: .attention, topic: "Network", detail: "\(address) is a link-local address: no router gave one",
                fix: "check the cable or Wi-Fi; the router must hand out addresses (DHCP)")
        }
        if octets.count == 4, octets[0] == 100, (64...127).contains(octets[1]) {
            return Finding(
                verdict: .attention, topic: "Network",
                detail: "\(address) is a carrier network's address (a mobile hotspot?): phones may not reach the box",
                fix: "put the box and the phones on the same home or venue Wi-Fi")
        }
        return Finding(
            verdict: .ok, topic: "Network",
            detail: "phones are sent to http://\(address):\(options.port); a guest Wi-Fi that keeps devices apart "
                + "cannot be seen from here: if phones cannot connect, put them on the main network")
    }

    private func disk() -> Finding {
        // The data folder, or the nearest folder above it that is there (it is made at the first start).
        var folder = options.dataDirectory
        while !FileManager.default.fileExists(atPath: folder), folder != "/", !folder.isEmpty {
            folder = (folder as NSString).deletingLastPathComponent
        }
        if folder.isEmpty { folder = "." }
        guard let free = BoxHealth.freeBytes(in: folder) else {
            return Finding(verdict: .skipped, topic: "Disk", detail: "cannot read the free space of \(folder)")
        }
        let text = "\(free >> 20) MB free in \(folder)"
        guard free >= BoxHealth.lowDiskBytes else {
            return Finding(
                verdict: .attention, topic: "Disk", detail: text + ": too little to save games",
                fix: "free some space (journalctl --vacuum-size=50M, apt clean)")
        }
        return Finding(verdict: .ok, topic: "Disk", detail: text)
    }

    private func database() -> Finding {
        let path = (options.dataDirectory as NSString).appendingPathComponent("tripto.sqlite")
        guard FileManager.default.fileExists(atPath: path) else {
            return Finding(
                verdict: .ok, topic: "Database", detail: "none yet at \(path): the box makes it as it starts")
        }
        do {
            var configuration = Configuration()
            configuration.readonly = true
            let result = try DatabaseQueue(path: path, configuration: configuration).read { db in
                try String.fetchOne(db, sql: "PRAGMA quick_check")
            }
            guard result == "ok" else {
                return Finding(
                    verdict: .attention, topic: "Database", detail: "\(path) is damaged: \(result ?? "no answer")",
                    fix: "stop the box, move the file away (the sessions in it are lost), start the box again")
            }
            return Finding(verdict: .ok, topic: "Database", detail: "\(path) is intact")
        } catch {
            return Finding(
                verdict: .attention, topic: "Database", detail: "cannot read \(path): \(error)",
                fix: "run tripto doctor as root, or check the file's owner")
        }
    }

    private func packs() -> Finding {
        var logger = Logger(label: "tripto.doctor")
        logger.logLevel = .critical
        let library = PackLibrary(directory: options.packsDirectory, preferredDefault: nil, logger: logger)
        // The mixes are the same packs again.
        let packs = library.summaries.filter { $0.origin != .mix }
        guard !packs.isEmpty else {
            return Finding(
                verdict: .attention, topic: "Packs", detail: "no valid pack in \(options.packsDirectory)",
                fix: "tripto pack validate \(options.packsDirectory)/* says what is wrong")
        }
        var missing = 0
        var total = 0
        for summary in packs {
            guard let pack = library[summary.packId] else { continue }
            for line in VoiceScript.lines(for: pack) {
                total += 1
                let path = library.clipPath(packId: pack.packId, clipId: line.clip)
                if path.map({ !FileManager.default.fileExists(atPath: $0) }) ?? true { missing += 1 }
            }
        }
        let detail =
            "\(packs.count) pack(s), \(packs.map(\.destinations).reduce(0, +)) destinations; "
            + "voice clips: \(total - missing) of \(total)"
        guard missing == 0 else {
            return Finding(
                verdict: .attention, topic: "Packs", detail: detail + ": the others are shown, not read out",
                fix: "tripto pack render-voice \(options.packsDirectory)/* (needs espeak-ng)")
        }
        return Finding(verdict: .ok, topic: "Packs", detail: detail)
    }

    private func espeak() -> Finding {
        guard let program = Self.program("espeak-ng") else {
            return Finding(
                verdict: .attention, topic: "Voice", detail: "espeak-ng is not installed: new packs cannot be read out",
                fix: "apt install espeak-ng")
        }
        return Finding(verdict: .ok, topic: "Voice", detail: "espeak-ng at \(program)")
    }

    /// The box stamps every message with its clock; a board without a real-time clock starts at 1970.
    private func clock() -> Finding {
        let now = Date()
        let year = Calendar(identifier: .gregorian).component(.year, from: now)
        guard year >= 2025 else {
            return Finding(
                verdict: .attention, topic: "Clock", detail: "the clock says \(now): it has not been set",
                fix: "connect the box to a network with a time server (systemd-timesyncd) or set it: date -s")
        }
        guard let timedatectl = Self.program("timedatectl"),
            FileManager.default.fileExists(atPath: "/run/systemd/system"),
            let synced = Self.output(timedatectl, ["show", "-p", "NTPSynchronized", "--value"])
        else {
            return Finding(
                verdict: .ok, topic: "Clock", detail: "\(now) (whether it is synchronised cannot be asked here)")
        }
        guard synced == "yes" else {
            return Finding(
                verdict: .attention, topic: "Clock", detail: "\(now), not synchronised with a time server",
                fix: "timedatectl set-ntp true; the box needs a network with a time server")
        }
        return Finding(verdict: .ok, topic: "Clock", detail: "\(now), synchronised")
    }

    /// The box's own screen: whether a kiosk's picture and text units are enabled and running.
    private func kioskScreen() -> Finding {
        guard FileManager.default.fileExists(atPath: "/run/systemd/system"), let systemctl = Self.program("systemctl")
        else {
            return Finding(verdict: .skipped, topic: "Kiosk screen", detail: "systemd is not running here")
        }
        var states: [String] = []
        for unit in ["tripto-screen", "tripto-console-tv"] {
            let enabled = Self.output(systemctl, ["is-enabled", unit]) ?? "unknown"
            let active = Self.output(systemctl, ["is-active", unit]) ?? "unknown"
            states.append("\(unit) \(enabled), \(active)")
            if enabled == "enabled", active != "active" {
                return Finding(
                    verdict: .attention, topic: "Kiosk screen", detail: states.joined(separator: "; "),
                    fix: "journalctl -u \(unit) says why"
                        + (unit == "tripto-screen" ? "; it needs cage and chromium" : ""))
            }
        }
        return Finding(verdict: .ok, topic: "Kiosk screen", detail: states.joined(separator: "; "))
    }

    // MARK: Helpers

    /// A second of a 660 Hz tone, fading in and out, as 48 kHz stereo.
    static func tone() -> [Int16] {
        let frames = Int(Sound.rate)
        var samples = [Int16](repeating: 0, count: frames * PCMOutput.channels)
        for frame in 0..<frames {
            let t = Double(frame) / Double(Sound.rate)
            let fade = min(1, min(t, 1 - t) / 0.05)
            let value = Int16(sin(2 * .pi * 660 * t) * fade * 8_000)
            samples[frame * 2] = value
            samples[frame * 2 + 1] = value
        }
        return samples
    }

    /// The box's /healthz on this machine's loopback, or nil if nothing answers as a box there.
    static func healthz(port: Int) -> Health? {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var timeout = timeval(tv_sec: 3, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(clamping: port)).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { return nil }
        let request = Array("GET /healthz HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n".utf8)
        guard send(descriptor, request, request.count, Int32(MSG_NOSIGNAL)) == request.count else { return nil }
        var response = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while response.count < 1 << 20 {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            guard count > 0 else { break }
            response += buffer[0..<count]
        }
        guard let split = response.firstRange(of: Array("\r\n\r\n".utf8)) else { return nil }
        return try? JSONDecoder().decode(Health.self, from: Data(response[split.upperBound...]))
    }

    /// The path of `name` on PATH, if it is there.
    static func program(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(name)" }.first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }

    /// What a short command printed, trimmed; nil if it could not run.
    static func output(_ program: String, _ arguments: [String]) -> String? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return nil }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
