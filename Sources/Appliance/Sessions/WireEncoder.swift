import Core

/// Server messages as the text frames that go on the socket.
enum WireEncoder {
    static func text(_ message: ServerMessage) -> String {
        json(message)
    }

    /// An ERROR, built here rather than in the caller: a message value is as large as its largest
    /// event (a whole projection), and in a socket's long-lived async function it would take that
    /// much of every socket's task memory.
    static func error(_ code: ErrorCode, _ message: String, sessionId: String, now: Int64) -> String {
        let payload = ErrorPayload(code, message: message)
        return text(ServerMessage(sessionId: sessionId, serverTimeMs: now, event: .error(payload)))
    }

    /// A SESSION_ENDED, built here for the reason `error` says.
    static func sessionEnded(reason: String, sessionId: String, now: Int64) -> String {
        text(ServerMessage(sessionId: sessionId, serverTimeMs: now, event: .sessionEnded(SessionEnded(reason: reason))))
    }

    /// WELCOME and the STATE_SNAPSHOT that follows it, with the projection encoded once: the
    /// snapshot's payload is cut out of the WELCOME, where `projection` is the last member (and none
    /// before it, ids and a role, can hold that key). With 200 players a projection is 29 KB, and a
    /// room sitting down encodes one for every connection.
    static func welcome(_ welcome: Welcome, sessionId: String, now: Int64) -> (welcome: String, snapshot: String) {
        let text = self.text(ServerMessage(sessionId: sessionId, serverTimeMs: now, event: .welcome(welcome)))
        guard let member = text.firstRange(of: #","projection":"#) else {
            return (
                text,
                self.text(
                    ServerMessage(sessionId: sessionId, serverTimeMs: now, event: .stateSnapshot(welcome.projection)))
            )
        }
        // The WELCOME ends with the projection, then its payload's brace and its own.
        let projection = text[member.upperBound..<text.index(text.endIndex, offsetBy: -2)]
        let snapshot =
            #"{"type":"STATE_SNAPSHOT","sessionId":"# + json(sessionId) + #","serverTimeMs":\#(now),"payload":"#
            + projection + "}"
        return (text, snapshot)
    }

    static func json<Value: Encodable>(_ value: Value) -> String {
        // Our own plain Codable types always encode (a Double that is not finite would not).
        String(decoding: try! StreamingJSONEncoder.encode(value), as: UTF8.self)
    }
}

/// A message's text on its way to a socket: whole, or a player's snapshot as the text shared by
/// every player around this player's own `you`. The parts are put together only as the frame is
/// written, on the socket's event loop, so the room makes no 15 KB copy per player.
enum WireText: Sendable {
    case whole(String)
    case spliced(head: String, you: String, tail: String)

    /// The text in one piece.
    var string: String {
        switch self {
        case .whole(let text): text
        case .spliced(let head, let you, let tail): head + you + tail
        }
    }

    /// Its length in UTF-8 bytes.
    var utf8Count: Int {
        switch self {
        case .whole(let text): text.utf8.count
        case .spliced(let head, let you, let tail): head.utf8.count + you.utf8.count + tail.utf8.count
        }
    }
}

/// The STATE_SNAPSHOT every player of a session gets after a change, encoded once: each player's
/// copy is the shared text with their own `you` put in. Encoding a whole projection per player made
/// a change in a 200-player session cost 200 encodings of a 200-player list.
struct PlayerSnapshot {
    private let shared: String
    /// The shared text around its `"you":null`; nil if it has none (then it is sent as it is).
    /// Kept as strings: joining substrings counts their characters first, all 15 KB of them.
    private let parts: (head: String, tail: String)?

    /// `message` is a STATE_SNAPSHOT of a player projection without `you`.
    init(_ message: ServerMessage) {
        let text = WireEncoder.text(message)
        shared = text
        // `you` is the projection's last key but one, and a key's quotes are never escaped, so the
        // last `"you":null` in the text is the key itself, whatever the strings before it hold.
        // Searched for in the UTF-8 bytes, from the end: the snapshot of a full table is 15 KB.
        let marker = Array(#""you":null"#.utf8)
        let bytes = text.utf8
        var end = bytes.endIndex
        var found: (value: String.Index, end: String.Index)?
        while found == nil, let start = bytes.index(end, offsetBy: -marker.count, limitedBy: bytes.startIndex) {
            if bytes[start..<end].elementsEqual(marker) {
                found = (bytes.index(start, offsetBy: marker.count - 4), end)
            } else {
                end = bytes.index(before: end)
            }
        }
        parts = found.map { (String(text[..<$0.value]), String(text[$0.end...])) }
    }

    func text(for you: Projection.You?) -> WireText {
        guard let you, let parts else { return .whole(shared) }
        return .spliced(head: parts.head, you: WireEncoder.json(you), tail: parts.tail)
    }
}
