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
    var logLevel: Logger.Level = .info
    /// Print the launch URL as a QR code in the terminal once the box is listening.
    var printQRCode = true
    /// Announce the box on the LAN by mDNS (Avahi).
    var announce = true
    /// The name the box is announced under (default: "Tripto box (hostname)").
    var boxName: String?

    var databasePath: String { (dataDirectory as NSString).appendingPathComponent("tripto.sqlite") }
}
