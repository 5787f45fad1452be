import Core
import Foundation
import Logging

/// Everything `tripto serve` can be told, with the embedded defaults.
struct BoxConfiguration: Sendable {
    var host = "0.0.0.0"
    var port = 8080
    var dataDirectory = "./data"
    var packsDirectory = "./packs"
    /// Overrides the address in join links and QR codes (default: the box's LAN IPv4).
    var publicURL: String?
    var defaultPackId: String?
    var maxPlayers = 50
    /// Sessions with nobody connected are ended after this long.
    var idleSessionSeconds = 600
    /// Ended sessions (and their command logs) are deleted this long after they ended.
    var keepEndedDays = 7
    var logLevel: Logger.Level = .info
    /// Print the launch URL as a QR code in the terminal once the box is listening.
    var printQRCode = true
    /// Announce the box on the LAN by mDNS (Avahi).
    var announce = true
    /// The name the box is announced under (default: "Tripto box (hostname)").
    var boxName: String?
    /// Run a venue kiosk: the box holds a session as its own TV and plays games without a host.
    var kiosk: KioskOptions?
    /// Scales how long autoAdvance games stay on each screen (1 = the defaults: a clue 20 s …).
    var autoPace = 1.0
    /// The ALSA device the box plays its sound through; nil plays nothing.
    var audioDevice: String? = "default"
    /// Where the composed music beds and effects are kept between starts (default: <data>/sounds).
    var soundsFolder: String?
    /// Refuse names with insults or slurs (`NameFilter`); `--allow-any-name` turns it off.
    var filterNames = true

    var databasePath: String { (dataDirectory as NSString).appendingPathComponent("tripto.sqlite") }
}
