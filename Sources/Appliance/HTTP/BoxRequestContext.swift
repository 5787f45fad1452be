import Core
import Foundation
import Hummingbird
import NIOCore

/// The request context of every route, with the caller's address (for throttling).
struct BoxRequestContext: RequestContext, RemoteAddressRequestContext {
    var coreContext: CoreRequestContextStorage
    let remoteAddress: SocketAddress?

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }

    /// Bodies above the contract's 16 KiB are refused before they are read in full.
    var maxUploadSize: Int { 16 * 1024 }

    var callerAddress: String { remoteAddress?.ipAddress ?? "unknown" }

    /// The request comes from the box itself (loopback): its own screen, console or load generator.
    var isFromTheBox: Bool {
        let caller = callerAddress
        return caller.hasPrefix("127.") || caller == "::1" || caller.hasPrefix("::ffff:127.")
    }
}

/// A REST error: `{ error, message }`, and the problems of a pack that was refused.
private struct ErrorBody: Encodable {
    var error: String
    var message: String
    var problems: [BoxError.Problem]?
}

extension BoxError: HTTPResponseError {
    var status: HTTPResponse.Status { .init(code: httpStatus) }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var response = try JSON.response(
            ErrorBody(error: code.rawValue, message: message, problems: problems), status: status)
        if let retryAfterSeconds { response.headers[.retryAfter] = String(retryAfterSeconds) }
        return response
    }
}

extension Request {
    /// The JSON body as `T`; an empty body decodes as `{}`. Malformed, wrongly typed or oversize → 400.
    func decodeBody<T: Decodable>(_ type: T.Type, context: BoxRequestContext) async throws(BoxError) -> T {
        var buffer: ByteBuffer
        do {
            buffer = try await body.collect(upTo: context.maxUploadSize)
        } catch {
            throw .badRequest("The body is larger than 16 KiB")
        }
        let data = buffer.readData(length: buffer.readableBytes) ?? Data()
        do {
            return try JSONDecoder().decode(T.self, from: data.isEmpty ? Data("{}".utf8) : data)
        } catch let DecodingError.dataCorrupted(context) where context.codingPath.first?.stringValue == "settings" {
            throw BoxError(
                status: 400, code: .invalidSettings,
                message:
                    "\(DecodingProblem.path(context.codingPath)) has a value the box does not know"
            )
        } catch {
            throw .badRequest(
                "The body is not the JSON this endpoint expects (\(DecodingProblem.describe(error, whole: "the body")))"
            )
        }
    }

    /// The bearer token of an `Authorization` header, if any.
    var bearerToken: String? {
        guard let value = headers[.authorization], value.lowercased().hasPrefix("bearer ") else { return nil }
        let token = value.dropFirst("bearer ".count).trimmingCharacters(in: .whitespaces)
        return token.isEmpty ? nil : token
    }
}
