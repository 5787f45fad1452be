import ArgumentParser
import CTriptoSystem
import Core
import Foundation
import Logging
import NIOCore
import QR

struct ServeCommand: AsyncParsableCommand {
    /// Below this limit on open files (sockets included) the box warns at the start: the load
    /// benchmark's venue of 200 tables holds 2,400 sockets.
    static let venueOpenFiles = 4_096

    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the box: the game server, its web API and WebSocket, with sessions kept in SQLite.",
        discussion: """
            Sessions survive a restart: the box replays each live session's command log from \
            <data-dir>/tripto.sqlite and re-arms its timers. Stop it with SIGTERM or Ctrl-C.
            """
    )

    @Option(help: "Address to listen on: 0.0.0.0 for every interface, or one address, which links and mDNS then use.")
    var host = "0.0.0.0"

    @Option(help: "Port to listen on (0 picks a free one).")
    var port = 8080

    @Option(name: .customLong("data-dir"), help: "Where the database lives (default: $STATE_DIRECTORY, else ./data).")
    var dataDirectory: String?

    @Option(help: "Folder of content packs.")
    var packs = "./packs"

    @Option(
        name: .customLong("public-url"),
        help: "Base URL for join links and QR codes (default: http://<LAN IPv4>:<port>).")
    var publicURL: String?

    @Option(name: .customLong("default-pack"), help: "Pack for sessions that do not choose one.")
    var defaultPack: String?

    @Option(name: .customLong("max-players"), help: "Players per session.")
    var maxPlayers = 50

    @Option(name: .customLong("idle-timeout"), help: "Seconds a session may have nobody connected before it ends.")
    var idleTimeout = 600

    @Option(
        name: .customLong("keep-ended-days"),
        help: "Days an ended session (and its command log) is kept before it is deleted.")
    var keepEndedDays = 7

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel = "info"

    @Flag(name: .customLong("no-qr"), help: "Do not print the launch QR code in the terminal.")
    var noQR = false

    @Option(help: "The name the box is announced under on the LAN (default: \"Tripto box (<hostname>)\").")
    var name: String?

    @Flag(name: .customLong("no-mdns"), help: "Do not announce the box by mDNS (Avahi).")
    var noMDNS = false

    @Flag(
        help: """
            Run unattended: the box holds a session as its own TV (open /tv?kiosk on its screen), starts \
            a game once players have joined, plays it without a host, and opens the lobby again after the finale.
            """)
    var kiosk = false

    @Option(
        name: .customLong("kiosk-settings"),
        help: "With --kiosk: the settings of its sessions, as in POST /v1/sessions (JSON; autoAdvance is always on).")
    var kioskSettings = #"{"destinationsCount":3}"#

    @Option(
        name: .customLong("kiosk-lobby-seconds"),
        help: "Seconds the kiosk lobby waits once a player is connected (counted again when none is).")
    var kioskLobbySeconds = 30

    @Option(
        name: .customLong("kiosk-end-seconds"), help: "Seconds the final standings stay before the lobby opens again.")
    var kioskEndSeconds = 20

    @Option(
        name: .customLong("kiosk-away-seconds"),
        help:
            "Seconds a player may be away, in the lobby or after a game, before the kiosk lets go of their seat; a game goes on three times as long with nobody connected before the kiosk gives it up (10 or more)."
    )
    var kioskAwaySeconds = 60

    /// For the tests: how long a kiosk session's log grows before an empty lobby starts over.
    @Option(name: .customLong("kiosk-renew-commands"), help: ArgumentHelp(visibility: .hidden))
    var kioskRenewCommands = KioskOptions().renewAfterCommands

    @Option(
        name: .customLong("kiosk-day-starts"),
        help: ArgumentHelp(
            "With --kiosk: the local time (HH:MM) at which tonight's leaderboard starts again.", valueName: "HH:MM"))
    var kioskDayStarts = "06:00"

    @Option(
        name: .customLong("staff-pin"),
        help: ArgumentHelp(
            "With --kiosk: the PIN that lets the venue's staff join the kiosk's game as its host (4–32 characters, no spaces).",
            valueName: "PIN"))
    var staffPin: String?

    @Flag(help: "Take any name, also insults and slurs (which the box refuses otherwise).")
    var allowAnyName = false

    @Option(
        name: .customLong("auto-pace"),
        help: "Scales how long autoAdvance games stay on each screen (1: a clue 20 s, the reveal 8 s …).")
    var autoPace = 1.0

    @Option(
        name: .customLong("audio-device"),
        help: "The ALSA device the box plays voice, music and effects through (see `aplay -L`).")
    var audioDevice = "default"

    @Flag(
        name: .customLong("no-audio"), help: "Play no sound on the box (phones and the TV page still show everything).")
    var noAudio = false

    @Option(
        name: .customLong("sounds-cache"),
        help: "Where the music beds and effects are kept once composed (default: <data-dir>/sounds).")
    var soundsCache: String?

    private var kioskSettingsRequest: SettingsRequest? {
        try? JSONDecoder().decode(SettingsRequest.self, from: Data(kioskSettings.utf8))
    }

    func validate() throws {
        guard kioskSettingsRequest != nil else {
            throw ValidationError("--kiosk-settings must be a JSON object of settings, as in POST /v1/sessions")
        }
        guard kioskLobbySeconds >= 0, kioskEndSeconds >= 0 else {
            throw ValidationError("--kiosk-lobby-seconds and --kiosk-end-seconds must not be negative")
        }
        // A guest who has just joined is away until their phone connects: give it time.
        guard kioskAwaySeconds >= 10 else {
            throw ValidationError("--kiosk-away-seconds must be 10 or more")
        }
        guard Tonight.minutes(kioskDayStarts) != nil else {
            throw ValidationError("--kiosk-day-starts must be a time of day as HH:MM, such as 06:00")
        }
        if let staffPin {
            guard kiosk else { throw ValidationError("--staff-pin is for a kiosk: give --kiosk too") }
            guard (4...32).contains(staffPin.count),
                staffPin.unicodeScalars.allSatisfy({ $0.isASCII && $0.value > 32 && $0.value < 127 })
            else {
                throw ValidationError("--staff-pin must be 4–32 letters, digits or signs, with no spaces")
            }
        }
        guard !audioDevice.isEmpty else { throw ValidationError("--audio-device must name a device") }
        guard autoPace > 0, autoPace <= 10 else { throw ValidationError("--auto-pace must be above 0 and at most 10") }
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0–65535") }
        // A scoped address (fe80::1%eth0) cannot be put in a link a phone opens.
        guard !host.contains("%") else {
            throw ValidationError(
                "--host cannot be a scoped IPv6 address (\(host)): give 0.0.0.0, :: or another address")
        }
        guard Logger.Level(rawValue: logLevel) != nil else {
            throw ValidationError("--log-level \(logLevel) is not a level")
        }
        guard idleTimeout >= 1 else { throw ValidationError("--idle-timeout must be at least 1 second") }
        guard (1...3650).contains(keepEndedDays) else { throw ValidationError("--keep-ended-days must be 1–3650") }
        guard maxPlayers >= 1 else { throw ValidationError("--max-players must be at least 1") }
        if let name, name.isEmpty || name.utf8.count > 63 {
            throw ValidationError("--name must be 1–63 bytes (an mDNS service name)")
        }
        if let publicURL, !(publicURL.hasPrefix("http://") || publicURL.hasPrefix("https://")) {
            throw ValidationError("--public-url must start with http:// or https://")
        }
    }

    func run() async throws {
        var configuration = BoxConfiguration()
        // [::1] as in a URL is ::1.
        configuration.host = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        configuration.port = port
        configuration.dataDirectory =
            dataDirectory ?? ProcessInfo.processInfo.environment["STATE_DIRECTORY"] ?? "./data"
        configuration.packsDirectory = packs
        configuration.publicURL = publicURL
        configuration.defaultPackId = defaultPack
        configuration.maxPlayers = maxPlayers
        configuration.idleSessionSeconds = idleTimeout
        configuration.keepEndedDays = keepEndedDays
        configuration.logLevel = Logger.Level(rawValue: logLevel) ?? .info
        configuration.printQRCode = !noQR
        configuration.announce = !noMDNS
        configuration.boxName = name
        configuration.autoPace = autoPace
        configuration.audioDevice = noAudio ? nil : audioDevice
        configuration.soundsFolder = soundsCache
        configuration.filterNames = !allowAnyName
        if kiosk, let request = kioskSettingsRequest {
            configuration.kiosk = KioskOptions(
                settings: request, lobbySeconds: kioskLobbySeconds, endSeconds: kioskEndSeconds,
                awaySeconds: kioskAwaySeconds, renewAfterCommands: max(1, kioskRenewCommands),
                tonight: Tonight(dayStartsMinutes: Tonight.minutes(kioskDayStarts) ?? 6 * 60), staffPin: staffPin)
        }

        let level = configuration.logLevel
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "tripto")
        switch EventLoopExecutor.installation {
        case .installed: logger.debug("tasks run on the event loops")
        case .disabled: logger.info("tasks run on the runtime's thread pool (TRIPTO_DISABLE=loop-executor)")
        case .hookTaken: logger.warning("tasks run on the runtime's thread pool: its executor hook was taken")
        case .unverifiedCompiler:
            logger.warning("tasks run on the runtime's thread pool: not checked with this compiler's runtime")
        }
        let switches = DisableSwitches(ProcessInfo.processInfo.environment["TRIPTO_DISABLE"])
        if !switches.off.isEmpty {
            logger.notice("optimisations off (TRIPTO_DISABLE): \(switches.off.joined(separator: ", "))")
        }
        if !switches.unknown.isEmpty {
            logger.warning(
                "TRIPTO_DISABLE: no optimisation is called \(switches.unknown.joined(separator: ", "))",
                metadata: ["known": "\(DisableSwitches.names.joined(separator: ", "))"])
        }
        let openFiles = Int(tripto_open_file_limit())
        logger.debug("open files: up to \(openFiles), the table grown to \(tripto_open_file_table()) at the start")
        if openFiles >= 0, openFiles < Self.venueOpenFiles {
            logger.warning(
                """
                only \(openFiles) open files are allowed, and every phone, TV and host holds one: \
                \(switches.off.contains("fd-table")
                    ? "TRIPTO_DISABLE=fd-table leaves the limit the box was started with"
                    : "raise the hard limit (LimitNOFILE=, ulimit -Hn) for a venue")
                """)
        }
        let box = try await Box(configuration: configuration, logger: logger)
        let printQR = configuration.printQRCode
        let isKiosk = configuration.kiosk != nil
        do {
            try await box.run { port in
                let url = box.address.baseURL
                var banner = "Tripto box is ready: \(url)\nlistening on port \(port)\n"
                if isKiosk { banner += "kiosk: show http://127.0.0.1:\(port)/tv?kiosk on the box's own screen\n" }
                banner += "studio, for writing your own packs: \(StudioLink.url(base: url, token: box.adminToken))\n"
                banner += "admin token, for writing packs (docs/packs.md): \(box.adminToken)\n"
                if printQR, let code = try? QRCode(url + "/") {
                    banner += "\nScan to open it on a phone on the same network:\n\(code.terminalText())\n"
                }
                print(banner)
                fflush(nil)
            }
        } catch let error as IOError where error.errnoCode == EADDRINUSE {
            throw CannotStart(
                description: """
                    port \(configuration.port) is already in use on \(configuration.host) (another tripto, or \
                    another server): stop it, or choose another --port
                    """)
        }
    }
}
