import Core

/// Server messages as the text frames that go on the socket. This is the one place the box puts an
/// envelope together, `{"type":…,"sessionId":…,"serverTimeMs":…,"payload":…}`, the shape
/// `ServerMessage` decodes (`StreamingJSONEncoderTests` checks that they agree, for every message of
/// a scripted game).
///
/// Some texts are shared by many connections and differ only in one part: every player's snapshot
/// but for their own `you`, every player's patch but for the operation on it, a WELCOME and the
/// snapshot after it. The encoder records where that part was written (`StreamingJSONEncoder`'s
/// `locating`), so the part is put in by position rather than found by searching the text.
enum WireEncoder {
    static func text(_ message: ServerMessage) -> String {
        let (bytes, _) = encode(
            message.event.payload, type: message.type, sessionId: message.sessionId, now: message.serverTimeMs)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// An ERROR, built here rather than in the caller: a message value is as large as its largest
    /// event (a whole projection), and in a socket's long-lived async function it would take that
    /// much of every socket's task memory.
    static func error(_ code: ErrorCode, _ message: String, sessionId: String, now: Int64) -> String {
        text(
            ServerMessage(sessionId: sessionId, serverTimeMs: now, event: .error(ErrorPayload(code, message: message))))
    }

    /// A SESSION_ENDED, built here for the reason `error` says.
    static func sessionEnded(reason: String, sessionId: String, now: Int64) -> String {
        text(ServerMessage(sessionId: sessionId, serverTimeMs: now, event: .sessionEnded(SessionEnded(reason: reason))))
    }

    /// WELCOME and the STATE_SNAPSHOT that follows it, with the projection encoded once: the
    /// snapshot's payload is the WELCOME's `projection`. With 200 players a projection is 29 KB, and
    /// a room sitting down encodes one for every connection.
    static func welcome(_ welcome: Welcome, sessionId: String, now: Int64) -> (welcome: String, snapshot: String) {
        let (bytes, projection) = encode(
            welcome, type: "WELCOME", sessionId: sessionId, now: now, locating: "projection")
        let text = String(decoding: bytes, as: UTF8.self)
        guard let projection else {
            // Not reached while `Welcome` encodes its projection; the snapshot is then encoded apart.
            return (
                text,
                self.text(
                    ServerMessage(sessionId: sessionId, serverTimeMs: now, event: .stateSnapshot(welcome.projection)))
            )
        }
        let snapshot = envelope("STATE_SNAPSHOT", sessionId: sessionId, now: now)
        return (text, String(decoding: snapshot.utf8 + bytes[projection] + [UInt8(ascii: "}")], as: UTF8.self))
    }

    /// The STATE_SNAPSHOT of `shared`, a player projection without `you`, ready for each player's own.
    static func playerSnapshot(_ shared: Projection, sessionId: String, now: Int64) -> PlayerSnapshot {
        let (bytes, you) = encode(
            shared, type: "STATE_SNAPSHOT", sessionId: sessionId, now: now, locating: "you")
        return PlayerSnapshot(bytes: bytes, you: you)
    }

    /// A STATE_PATCH from `baseVersion` to `version` with `operations` (each a JSON Patch
    /// operation's text), ready for a player's own operation on `you` at the end.
    static func patch(
        version: Int, baseVersion: Int, operations: [String], sessionId: String, now: Int64
    ) -> PatchText {
        let payload = PatchPayload(version: version, baseVersion: baseVersion, ops: operations.map(JSONFragment.init))
        let (bytes, ops) = encode(payload, type: "STATE_PATCH", sessionId: sessionId, now: now, locating: "ops")
        // `PatchPayload` always writes its operations, an array that ends with its bracket: a player's
        // operation goes just before it.
        guard let ops else { preconditionFailure("a STATE_PATCH without its operations") }
        return PatchText(bytes: bytes, end: ops.upperBound - 1, isEmpty: operations.isEmpty)
    }

    static func json<Value: Encodable>(_ value: Value) -> String {
        // Our own plain Codable types always encode (a Double that is not finite would not).
        String(decoding: try! StreamingJSONEncoder.encode(value), as: UTF8.self)
    }

    private struct PatchPayload: Encodable {
        let version: Int
        let baseVersion: Int
        let ops: [JSONFragment]
    }

    /// The envelope up to its payload.
    private static func envelope(_ type: String, sessionId: String, now: Int64) -> String {
        #"{"type":"# + json(type) + #","sessionId":"# + json(sessionId) + #","serverTimeMs":\#(now),"payload":"#
    }

    /// A whole message: the envelope, the payload, the envelope's brace; and where the payload's
    /// member `key` was written.
    private static func encode<Payload: Encodable>(
        _ payload: Payload, type: String, sessionId: String, now: Int64, locating key: String? = nil
    ) -> (bytes: [UInt8], located: Range<Int>?) {
        // Our own plain Codable types always encode (a Double that is not finite would not).
        var (bytes, located) = try! StreamingJSONEncoder.encode(
            payload, after: envelope(type, sessionId: sessionId, now: now), locating: key)
        bytes.append(UInt8(ascii: "}"))
        return (bytes, located)
    }
}

/// A message's text on its way to a socket: whole, or a text shared by many connections with one
/// connection's own part put in. The parts are put together only as the frame is written, on the
/// socket's event loop, so the room makes no 15 KB copy per player.
enum WireText: Sendable {
    case whole(String)
    case spliced(head: String, own: String, tail: String)

    /// The text in one piece.
    var string: String {
        switch self {
        case .whole(let text): text
        case .spliced(let head, let own, let tail): head + own + tail
        }
    }

    /// Its length in UTF-8 bytes.
    var utf8Count: Int {
        switch self {
        case .whole(let text): text.utf8.count
        case .spliced(let head, let own, let tail): head.utf8.count + own.utf8.count + tail.utf8.count
        }
    }
}

/// The STATE_SNAPSHOT every player of a session gets after a change, encoded once: each player's
/// copy is the shared text with their own `you` in place of its `null`. Encoding a whole projection
/// per player made a change in a 200-player session cost 200 encodings of a 200-player list.
struct PlayerSnapshot {
    private let shared: String
    /// The shared text around its `you`'s `null`; nil if the projection wrote no `you` (then the
    /// shared text goes as it is). Kept as strings: joining substrings counts their characters
    /// first, all 15 KB of them.
    private let parts: (head: String, tail: String)?

    fileprivate init(bytes: [UInt8], you: Range<Int>?) {
        shared = String(decoding: bytes, as: UTF8.self)
        parts = you.map {
            (
                String(decoding: bytes[..<$0.lowerBound], as: UTF8.self),
                String(decoding: bytes[$0.upperBound...], as: UTF8.self)
            )
        }
    }

    func text(for you: Projection.You?) -> WireText {
        guard let you, let parts else { return .whole(shared) }
        return .spliced(head: parts.head, own: WireEncoder.json(you), tail: parts.tail)
    }
}

/// A STATE_PATCH's text, whole, and around the place of a player's own operation on `you` (last).
struct PatchText {
    /// Without an operation on `you`; made once for all the connections of a role.
    let whole: String
    private let head: String
    private let tail: String
    /// No operations before `you`'s (so it needs no comma).
    private let isEmpty: Bool

    fileprivate init(bytes: [UInt8], end: Int, isEmpty: Bool) {
        whole = String(decoding: bytes, as: UTF8.self)
        head = String(decoding: bytes[..<end], as: UTF8.self)
        tail = String(decoding: bytes[end...], as: UTF8.self)
        self.isEmpty = isEmpty
    }

    /// The patch with `you`, a player's own operation, if there is one.
    func text(adding you: String?) -> WireText {
        guard let you else { return .whole(whole) }
        return .spliced(head: head, own: (isEmpty ? "" : ",") + you, tail: tail)
    }
}
