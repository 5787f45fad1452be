/// The release of the box and its console, which ship together: `tripto --version`,
/// `tripto-console --version`, `/healthz` and the mDNS announcement say it.
public let triptoVersion = "0.1.0"
