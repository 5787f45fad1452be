import Crypto
import Foundation
import Hummingbird

/// The pages phones, the TV and the host open: plain HTML, CSS and JavaScript modules shipped in the
/// Appliance's resources. They are read once at start and served from memory with an ETag, so a phone
/// on a weak Wi-Fi revalidates with a 304 instead of downloading them again.
///
/// Every page has the same frame, `layout.html` (the head, the top bar); a page file holds only its own
/// parts, which are put into the layout here, once, at start (docs/web.md, "One layout for every page").
struct WebPages: Sendable {
    struct Asset: Sendable {
        let body: ByteBuffer
        let contentType: String
        let etag: String
    }

    /// Keyed by the URL path under `/static/` (for example `js/player.js`) and by page name.
    let assets: [String: Asset]

    /// The folder shipped inside the executable's resource bundle.
    static var bundledDirectory: URL? { Bundle.module.url(forResource: "Web", withExtension: nil) }

    static let contentTypes = [
        "html": "text/html; charset=utf-8", "css": "text/css; charset=utf-8",
        "js": "text/javascript; charset=utf-8", "svg": "image/svg+xml", "png": "image/png",
        "ico": "image/x-icon", "json": "application/json; charset=utf-8", "webmanifest": "application/manifest+json",
        "webm": "video/webm", "mp4": "video/mp4",
    ]

    /// The frame of every page, which is not served itself.
    static let layoutName = "layout.html"

    struct Missing: Error, CustomStringConvertible {
        let path: String
        var description: String { "the web pages are missing (looked in \(path))" }
    }

    /// A page with a part the layout has no place for: a typo that would otherwise drop the part silently.
    struct PartWithoutSlot: Error, CustomStringConvertible {
        let page: String
        let part: String
        var description: String { "\(page) has a part '\(part)' that \(WebPages.layoutName) has no {{\(part)}} for" }
    }

    init(directory: URL) throws {
        var assets: [String: Asset] = [:]
        let root = directory.standardizedFileURL.path
        let rootURL = URL(fileURLWithPath: root)
        guard let walker = FileManager.default.enumerator(atPath: root) else { throw Missing(path: root) }
        let layoutURL = rootURL.appendingPathComponent(Self.layoutName)
        guard let layout = try? String(contentsOf: layoutURL, encoding: .utf8) else {
            throw Missing(path: layoutURL.path)
        }
        for case let relative as String in walker where relative != Self.layoutName {
            let ext = (relative as NSString).pathExtension
            guard let type = Self.contentTypes[ext] else { continue }
            var data = try Data(contentsOf: rootURL.appendingPathComponent(relative))
            if ext == "html" {
                let page = String(decoding: data, as: UTF8.self)
                data = Data(try Self.compose(page: page, named: relative, into: layout).utf8)
            }
            let digest = SHA256.hash(data: data).prefix(12).map { String(format: "%02x", $0) }.joined()
            assets[relative] = Asset(body: ByteBuffer(bytes: data), contentType: type, etag: "\"\(digest)\"")
        }
        self.assets = assets
    }

    /// A page file's parts put into the layout. In the page, a line `<!-- name -->` starts the part of
    /// that name, up to the next such line (what comes before the first is the file's own comment). In
    /// the layout, `{{name}}` stands where the part goes: alone on its line, it takes the part's lines at
    /// that line's indentation; inside a line (a title, an attribute), the part on one line. A place no
    /// part fills stays empty, and a line left empty goes.
    static func compose(page: String, named name: String, into layout: String) throws(PartWithoutSlot) -> String {
        var parts: [String: [Substring]] = [:]
        var current: String?
        for line in page.split(separator: "\n") {
            if let marker = line.wholeMatch(of: /<!-- ([a-z-]+) -->/) {
                current = String(marker.1)
                parts[String(marker.1)] = []
            } else if let current {
                parts[current, default: []].append(line)
            }
        }
        for part in parts.keys where !layout.contains("{{\(part)}}") {
            throw PartWithoutSlot(page: name, part: part)
        }
        let slot = /\{\{([a-z-]+)\}\}/
        var html: [Substring] = []
        for line in layout.split(separator: "\n", omittingEmptySubsequences: false) {
            let indent = line.prefix { $0 == " " }
            if let whole = line.dropFirst(indent.count).wholeMatch(of: slot) {
                html += (parts[String(whole.1)] ?? []).map { indent + $0 }
            } else {
                html.append(line.replacing(slot) { parts[String($0.1)]?.joined(separator: " ") ?? "" })
            }
        }
        return html.joined(separator: "\n")
    }

    func addRoutes(to router: Router<BoxRequestContext>) {
        router.get("/") { request, _ in try page("index.html", request) }
        router.get("/tv") { request, _ in try page("tv.html", request) }
        router.get("/host") { request, _ in try page("host.html", request) }
        router.get("/play") { request, _ in try page("player.html", request) }
        router.get("/studio") { request, _ in try page("studio.html", request) }
        router.get("/join/:sessionId") { request, _ in try page("player.html", request) }
        router.get("/static/**") { request, context in
            try page(context.parameters.getCatchAll().joined(separator: "/"), request)
        }
        router.get("/favicon.ico") { request, _ in try page("icon.svg", request) }
    }

    private func page(_ path: String, _ request: Request) throws -> Response {
        guard let asset = assets[path] else {
            throw BoxError(status: 404, code: .notFound, message: "No such page on this box")
        }
        var headers: HTTPFields = [
            .contentType: asset.contentType, .eTag: asset.etag,
            // Revalidate every time: a box update must reach phones that kept the old page.
            .cacheControl: "no-cache",
        ]
        if request.headers[.ifNoneMatch] == asset.etag {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentLength] = String(asset.body.readableBytes)
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: asset.body))
    }
}
