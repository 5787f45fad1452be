import Foundation
import Hummingbird

/// `GET /v1/sounds` and `GET /v1/sounds/{soundId}` (CONTRACT 4.5): the beds and effects the box
/// composes, for a TV page that plays the room's sound itself. Open to anyone on the network, like
/// the pages: they are the project's own CC0 work and say nothing of any game.
struct SoundsController: Sendable {
    let shelf: SoundShelf

    struct Listing: Encodable {
        struct Entry: Encodable {
            var soundId: String
            /// `music` (a bed, `MUSIC_SET`) or `sfx` (an effect, `SFX_PLAY`).
            var kind: String
            var title: String
            var durationMs: Int
            var loops: Bool
            /// Where to fetch it: a 48 kHz stereo 16-bit WAV, the same as the box plays.
            var url: String
            var licence: String
        }
        var revision: String
        var sounds: [Entry]
    }

    func addRoutes(to router: Router<BoxRequestContext>) {
        router.get("/v1/sounds") { _, _ in try await list() }
        router.get("/v1/sounds/:soundId") { request, context in try await sound(request, context) }
    }

    /// The sounds, composed first on a thread of their own when nobody has needed them yet.
    private func library() async -> SoundLibrary {
        await withCheckedContinuation { continuation in
            DispatchQueue.global(qos: .userInitiated).async { continuation.resume(returning: shelf.load().library) }
        }
    }

    private func list() async throws -> Response {
        let library = await library()
        let revision = SoundLibrary.revision
        let entries = library.credits.map {
            Listing.Entry(
                soundId: $0.id, kind: $0.kind, title: $0.title, durationMs: $0.durationMs, loops: $0.loops,
                url: "/v1/sounds/\($0.id)?v=\(revision)", licence: $0.licence)
        }
        return try JSON.response(Listing(revision: revision, sounds: entries))
    }

    private func sound(_ request: Request, _ context: BoxRequestContext) async throws -> Response {
        let id = context.parameters.get("soundId") ?? ""
        let missing = BoxError(status: 404, code: .notFound, message: "No sound \(id) on this box")
        _ = await library()
        guard let file = shelf.file(of: id) else { throw missing }
        // The same revision is the same sound: a TV page keeps it, and asks again when the box's sounds change.
        let etag = "\"\(SoundLibrary.revision)-\(id)\""
        let headers: HTTPFields = [
            .contentType: "audio/wav", .eTag: etag, .cacheControl: "public, max-age=86400",
        ]
        if request.headers[.ifNoneMatch] == etag { return Response(status: .notModified, headers: headers) }
        let body: ResponseBody
        do {
            body = try await FileIO().loadFile(path: file.path, context: context)
        } catch {
            throw missing
        }
        return Response(status: .ok, headers: headers, body: body)
    }
}
