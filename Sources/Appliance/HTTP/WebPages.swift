import Crypto
import Foundation
import Hummingbird

/// The pages phones, the TV and the host open: plain HTML, CSS and JavaScript modules shipped in the
/// Appliance's resources. They are read once at start and served from memory with an ETag, so a phone
/// on a weak Wi-Fi revalidates with a 304 instead of downloading them again.
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
    ]

    struct Missing: Error, CustomStringConvertible {
        let path: String
        var description: String { "the web pages are missing (looked in \(path))" }
    }

    init(directory: URL) throws {
        var assets: [String: Asset] = [:]
        let root = directory.standardizedFileURL.path
        guard let walker = FileManager.default.enumerator(atPath: root) else { throw Missing(path: root) }
        for case let relative as String in walker {
            let ext = (relative as NSString).pathExtension
            guard let type = Self.contentTypes[ext] else { continue }
            let data = try Data(contentsOf: URL(fileURLWithPath: root).appendingPathComponent(relative))
            let digest = SHA256.hash(data: data).prefix(12).map { String(format: "%02x", $0) }.joined()
            assets[relative] = Asset(body: ByteBuffer(bytes: data), contentType: type, etag: "\"\(digest)\"")
        }
        self.assets = assets
    }

    func addRoutes(to router: Router<BoxRequestContext>) {
        router.get("/") { request, _ in try page("index.html", request) }
        router.get("/tv") { request, _ in try page("tv.html", request) }
        router.get("/host") { request, _ in try page("host.html", request) }
        router.get("/play") { request, _ in try page("player.html", request) }
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
