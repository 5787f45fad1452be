import Core
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The box's REST side (CONTRACT.md section 2), as far as the console uses it: create, look up, join.
struct BoxAPI: Sendable {
    /// `http://host:port`, without a trailing slash.
    let baseURL: String

    init(baseURL: String) {
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
    }

    /// The socket is reached the way the box was: the `wsUrl` the box hands out is its public address,
    /// which a console on the box itself or behind a tunnel may not reach.
    var webSocketURL: String {
        if baseURL.hasPrefix("https://") { return "wss://" + baseURL.dropFirst("https://".count) + "/ws" }
        if baseURL.hasPrefix("http://") { return "ws://" + baseURL.dropFirst("http://".count) + "/ws" }
        return baseURL + "/ws"
    }

    struct Created: Decodable, Sendable {
        var sessionId: String
        var joinCode: String
        var joinUrl: String
        var hostAuthToken: String?
        var tvAuthToken: String?
        var playerId: String?
        var playerAuthToken: String?
    }

    struct Found: Decodable, Sendable {
        var sessionId: String
        var joinCode: String
        var hasHost: Bool
        var hasTv: Bool
    }

    struct Joined: Decodable, Sendable {
        var sessionId: String
        var joinCode: String
        var playerId: String
        var playerAuthToken: String
    }

    /// A TV seat: the answer to a TV join and to `GET /v1/kiosk` alike.
    struct TVSeat: Decodable, Sendable {
        var sessionId: String
        var joinCode: String
        var tvAuthToken: String

        var seat: Seat { Seat(role: .tv, sessionId: sessionId, joinCode: joinCode, token: tvAuthToken) }
    }

    private struct Refusal: Decodable {
        var error: String
        var message: String?
    }

    /// A new session in `role`'s seat; a player (`name`) creates a game without a host and is its
    /// captain (CONTRACT 4.2).
    func create(as role: Role, name: String? = nil) async throws(ConsoleError) -> Seat {
        var body = ["role": role.rawValue]
        if role == .player, let name { body["name"] = name }
        let created: Created = try await call("POST", "/v1/sessions", body: body)
        let token =
            switch role {
            case .tv: created.tvAuthToken
            case .host: created.hostAuthToken
            case .player: created.playerAuthToken
            }
        guard let token else {
            throw .unexpected("the box created a session but sent no token for the \(role.rawValue)")
        }
        return Seat(
            role: role, sessionId: created.sessionId, joinCode: created.joinCode, token: token,
            playerId: created.playerId)
    }

    /// Finds the session of `code`, then takes the seat of `role` in it.
    /// `staffPin`: a venue's staff PIN, to host a kiosk's game (CONTRACT 4.4).
    func join(code: String, as role: Role, name: String?, staffPin: String? = nil) async throws(ConsoleError) -> Seat {
        let cleaned = code.uppercased().filter { $0 != " " && $0 != "-" }
        guard !cleaned.isEmpty, cleaned.allSatisfy({ $0.isLetter || $0.isNumber }) else {
            throw .refused(code: ErrorCode.sessionNotFound.rawValue, message: "Session not found or expired")
        }
        let found: Found = try await call("GET", "/v1/sessions/by-code/\(cleaned)")
        switch role {
        case .tv:
            let joined: TVSeat = try await call(
                "POST", "/v1/sessions/\(found.sessionId)/tv", body: ["joinCode": found.joinCode])
            return joined.seat
        case .host, .player:
            var body = ["role": role.rawValue, "joinCode": found.joinCode]
            if let name { body["name"] = name }
            if role == .host, let staffPin { body["staffPin"] = staffPin }
            let joined: Joined = try await call("POST", "/v1/sessions/\(found.sessionId)/join", body: body)
            return Seat(
                role: role, sessionId: joined.sessionId, joinCode: joined.joinCode, token: joined.playerAuthToken,
                playerId: joined.playerId)
        }
    }

    /// Whether the session of a kept seat is still live under its code (a code is given again once
    /// its session has ended); nil when the box could not say (unreachable, busy), so that a seat
    /// is given up only when it is surely gone.
    func isLive(_ seat: Seat) async -> Bool? {
        do {
            let found: Found = try await call("GET", "/v1/sessions/by-code/\(seat.joinCode)")
            return found.sessionId == seat.sessionId
        } catch .refused(let code, _) where code == ErrorCode.sessionNotFound.rawValue {
            return false
        } catch {
            return nil
        }
    }

    /// The kiosk's TV seat (`GET /v1/kiosk`, answered only on the box itself).
    func kioskSeat() async throws(ConsoleError) -> Seat {
        let seat: TVSeat = try await call("GET", "/v1/kiosk")
        return seat.seat
    }

    private func call<Reply: Decodable>(
        _ method: String, _ path: String, body: [String: String]? = nil
    ) async throws(ConsoleError) -> Reply {
        guard let url = URL(string: baseURL + path) else { throw .badURL(baseURL) }
        var request = URLRequest(url: url, timeoutInterval: 10)
        request.httpMethod = method
        if let body {
            request.httpBody = try? JSONEncoder().encode(body)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await URLSession.shared.data(for: request)
        } catch {
            throw .unreachable(baseURL, error.localizedDescription)
        }
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard (200..<300).contains(status) else {
            guard let refusal = try? JSONDecoder().decode(Refusal.self, from: data) else {
                throw .answered("\(method) \(path)", status: status)
            }
            throw .refused(code: refusal.error, message: refusal.message ?? refusal.error)
        }
        do {
            return try JSONDecoder().decode(Reply.self, from: data)
        } catch {
            throw .unexpected("\(method) \(path): unreadable answer")
        }
    }
}

/// A seat in a session: who the console is and the token that proves it.
struct Seat: Sendable, Equatable {
    var role: Role
    var sessionId: String
    var joinCode: String
    var token: String
    var playerId: String?
}
