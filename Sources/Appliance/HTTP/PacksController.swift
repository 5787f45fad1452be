import Core
import Foundation
import Hummingbird
import Logging

/// The packs: listed for everyone, written, checked, exported and deleted with the admin token (CONTRACT 4.3,
/// docs/protocol.md, "Packs made on the box").
struct PacksController: Sendable {
    let hub: SessionHub
    let packs: PackLibrary
    let adminToken: String
    let logger: Logger

    /// A pack's JSON may be this large.
    static let maxBodyBytes = 1 << 20

    func addRoutes(to router: Router<BoxRequestContext>) {
        router.get("/v1/packs") { _, _ in try JSON.response(packs.summaries) }
        router.put("/v1/packs/:packId") { request, context in try await put(request, context) }
        router.get("/v1/packs/:packId") { request, context in try export(request, context) }
        router.delete("/v1/packs/:packId") { request, context in try await delete(request, context) }
        router.post("/v1/packs/:packId/check") { request, context in try await check(request, context) }
    }

    struct Saved: Encodable {
        var packId: String
        var title: String
        var language: Language
        var destinations: Int
        var warnings: [String]
    }

    /// What `POST /v1/packs/{packId}/check` answers: what a `PUT` of the same body would find.
    struct Checked: Encodable {
        var ok: Bool
        var problems: [BoxError.Problem]
        var warnings: [String]
    }

    private func put(_ request: Request, _ context: BoxRequestContext) async throws(BoxError) -> Response {
        let packId = try authorizedPackId(request, context)
        let data = try await packBody(request)
        let written: PackLibrary.Written
        do {
            written = try packs.put(packId, data: data)
        } catch {
            throw boxError(error)
        }
        renderVoiceInBackground(written)
        logger.info(
            "pack saved", metadata: ["pack.id": "\(packId)", "destinations": "\(written.pack.destinations.count)"])
        let saved = Saved(
            packId: written.pack.packId, title: written.pack.title, language: written.pack.language,
            destinations: written.pack.destinations.count, warnings: written.warnings.map(\.description))
        do {
            return try JSON.response(saved, status: written.created ? .created : .ok)
        } catch {
            throw BoxError(status: 500, code: .badRequest, message: "\(error)")
        }
    }

    /// The pack checked as `put` checks it, and nothing saved: the studio page's live checks.
    private func check(_ request: Request, _ context: BoxRequestContext) async throws(BoxError) -> Response {
        let packId = try authorizedPackId(request, context)
        let data = try await packBody(request)
        let (problems, warnings) = packs.check(packId, data: data)
        let checked = Checked(
            ok: problems.isEmpty, problems: problems.map { .init(path: $0.path, message: $0.reason) },
            warnings: warnings.map(\.description))
        do {
            return try JSON.response(checked)
        } catch {
            throw BoxError(status: 500, code: .badRequest, message: "\(error)")
        }
    }

    private func packBody(_ request: Request) async throws(BoxError) -> Data {
        do {
            var buffer = try await request.body.collect(upTo: Self.maxBodyBytes)
            return buffer.readData(length: buffer.readableBytes) ?? Data()
        } catch {
            throw BoxError(status: 413, code: .badRequest, message: "A pack may be at most 1 MiB")
        }
    }

    private func export(_ request: Request, _ context: BoxRequestContext) throws(BoxError) -> Response {
        let packId = try authorizedPackId(request, context)
        do {
            let data = try packs.stored(packId)
            return Response(
                status: .ok,
                headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"],
                body: .init(byteBuffer: ByteBuffer(bytes: data)))
        } catch {
            throw boxError(error)
        }
    }

    private func delete(_ request: Request, _ context: BoxRequestContext) async throws(BoxError) -> Response {
        let packId = try authorizedPackId(request, context)
        let inUse = await hub.livePackIds().contains(packId)
        do {
            try packs.delete(packId, inUse: inUse)
        } catch {
            throw boxError(error)
        }
        logger.info("pack deleted", metadata: ["pack.id": "\(packId)", "in.use": "\(inUse)"])
        return Response(status: .noContent)
    }

    /// The pack id of the address, once the caller has shown the admin token.
    private func authorizedPackId(_ request: Request, _ context: BoxRequestContext) throws(BoxError) -> String {
        guard let token = request.bearerToken, Secrets.equal(token, adminToken) else {
            throw BoxError(status: 401, code: .unauthorized, message: "Writing packs needs the box's admin token")
        }
        let packId = context.parameters.get("packId")?.removingPercentEncoding ?? ""
        guard PackLibrary.isWellFormed(packId) else {
            throw .badRequest("A pack id is 3 to 40 lowercase letters, digits and dashes")
        }
        return packId
    }

    private func boxError(_ error: PackLibrary.WriteError) -> BoxError {
        switch error {
        case .invalid(let problems):
            var error = BoxError(
                status: 422, code: .invalidPack,
                message: "The pack has \(problems.count) problem\(problems.count == 1 ? "" : "s"); nothing was saved")
            error.problems = problems.map { .init(path: $0.path, message: $0.reason) }
            return error
        case .readOnly:
            return BoxError(status: 409, code: .packReadOnly, message: "A pack shipped with the box cannot be changed")
        case .notFound:
            return BoxError(status: 404, code: .notFound, message: "No pack of that id was written on this box")
        case .storage(let reason):
            return .storage(reason)
        }
    }

    /// Voice clips for the pack's lines, rendered off the request where espeak-ng is installed; the
    /// box shows the clues unread until they are there.
    private func renderVoiceInBackground(_ written: PackLibrary.Written) {
        let logger = logger
        Task.detached(priority: .background) {
            guard Doctor.program("espeak-ng") != nil else { return }
            let voice = Voice(program: "espeak-ng", language: written.pack.language)
            let folder = URL(fileURLWithPath: written.folder).appendingPathComponent("voice")
            do {
                let outcome = try voice.render(VoiceScript.lines(for: written.pack), into: folder, force: false)
                logger.info(
                    "pack voice rendered",
                    metadata: ["pack.id": "\(written.pack.packId)", "clips": "\(outcome.rendered)"])
            } catch {
                logger.warning(
                    "pack voice not rendered", metadata: ["pack.id": "\(written.pack.packId)", "error": "\(error)"])
            }
        }
    }
}
