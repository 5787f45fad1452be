import Foundation
import Testing

@testable import Appliance

/// The pages the box serves: every role's page answers, nothing in them points outside the box, and
/// they are served with the headers that keep a phone's copy fresh and the page locked down.
@Suite("Web pages", .serialized, .timeLimit(.minutes(5)))
struct WebPagesTests {
    @Test("every page and asset answers with its type, the security headers, an ETag, and a 304 when unchanged")
    func pagesAnswer() async throws {
        let box = try BoxProcess()
        try await box.start()
        let http = HTTP(base: box.baseURL)
        for (path, type) in [
            ("/", "text/html"), ("/tv", "text/html"), ("/host", "text/html"), ("/play", "text/html"),
            ("/join/abcdefghijklmnop", "text/html"), ("/static/js/player.js", "text/javascript"),
            ("/static/css/tripto.css", "text/css"), ("/static/icon.svg", "image/svg+xml"), ("/studio", "text/html"),
            ("/static/js/studio.js", "text/javascript"),
        ] {
            let reply = try await http.get(path)
            #expect(reply.status == 200, "\(path)")
            #expect(reply.headers["content-type"]?.hasPrefix(type) == true, "\(path)")
            // Locked down: nothing from outside the box, no inline script, no framing, no sniffing.
            let csp = (reply.headers["content-security-policy"] ?? "").split(separator: ";").map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            for directive in [
                "default-src 'self'", "connect-src 'self'", "frame-ancestors 'none'", "object-src 'none'",
            ] {
                #expect(csp.contains(directive), "\(path): \(directive)")
            }
            #expect(!csp.contains { $0.contains("unsafe-inline") || $0.contains("unsafe-eval") }, "\(path)")
            #expect(!csp.contains { $0.hasPrefix("script-src") }, "\(path): scripts fall back to 'self'")
            #expect(reply.headers["x-content-type-options"] == "nosniff", "\(path)")
            #expect(reply.headers["referrer-policy"] == "no-referrer", "\(path)")
            let etag = try #require(reply.headers["etag"])
            let again = try await http.call("GET", path, headers: ["If-None-Match": etag])
            #expect(again.status == 304, "\(path)")
        }
        // Error answers carry the headers too.
        for path in ["/static/js/nothing.js", "/nothing", "/v1/sessions/by-code/ZZZZZZ"] {
            let missing = try await http.get(path)
            #expect(missing.status == 404, "\(path)")
            #expect(missing.headers["x-content-type-options"] == "nosniff", "\(path)")
            #expect(missing.headers["content-security-policy"]?.contains("frame-ancestors 'none'") == true, "\(path)")
        }
        #expect(try await http.get("/static/%2e%2e/Package.swift").status == 404)
    }

    @Test("no served file names a host outside the box, and no script builds markup from strings")
    func nothingLeavesTheBox() throws {
        let directory = try #require(WebPages.bundledDirectory)
        let pages = try WebPages(directory: directory)
        #expect(pages.assets.keys.contains("js/player.js") && pages.assets.count >= 12)
        // The SVG namespace is a name, not an address the browser fetches.
        let namespace = "http://www.w3.org/2000/svg"
        let external = try NSRegularExpression(
            pattern: #"(https?:)?//[a-z0-9.-]+\.[a-z]{2,}"#, options: [.caseInsensitive])
        // Text files: the wake videos are media of a few bytes, made by scripts/make-wake-video.
        for path in pages.assets.keys where !path.hasSuffix(".webm") && !path.hasSuffix(".mp4") {
            let file = directory.appendingPathComponent(path)
            let text = try String(contentsOf: file, encoding: .utf8).replacingOccurrences(of: namespace, with: "")
            let range = NSRange(text.startIndex..., in: text)
            let hits = external.matches(in: text, range: range).map { String(text[Range($0.range, in: text)!]) }
            #expect(hits.isEmpty, "\(path) names \(hits)")
            if path.hasSuffix(".js") {
                for sink in ["innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval("] {
                    #expect(!text.contains(sink), "\(path) uses \(sink)")
                }
            }
        }
    }
}
