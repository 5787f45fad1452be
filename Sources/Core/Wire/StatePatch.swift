/// STATE_PATCH: what changed in the recipient's projection since the one it has, as JSON Patch
/// operations (RFC 6902: `add`, `remove`, `replace`). Only clients that asked for patches get
/// them (docs/protocol.md, "State patches"); the others get a STATE_SNAPSHOT every time.
public struct StatePatch: Codable, Sendable, Equatable {
    /// The projection's `version` after the operations.
    public var version: Int
    /// The `version` of the projection the operations apply to: the last one this client was sent.
    public var baseVersion: Int
    public var ops: [PatchOperation]

    public init(version: Int, baseVersion: Int, ops: [PatchOperation]) {
        self.version = version
        self.baseVersion = baseVersion
        self.ops = ops
    }
}

/// One JSON Patch operation; `path` is a JSON Pointer into the projection.
public struct PatchOperation: Codable, Sendable, Equatable {
    public var op: String
    public var path: String
    /// Absent for `remove`. (A `null` value decodes as nil too: both mean JSON null.)
    public var value: JSONValue?

    public init(op: String, path: String, value: JSONValue? = nil) {
        self.op = op
        self.path = path
        self.value = value
    }

    private enum CodingKeys: String, CodingKey { case op, path, value }

    /// `add` and `replace` always carry a value, `null` included.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(op, forKey: .op)
        try container.encode(path, forKey: .path)
        if op != "remove" { try container.encode(value ?? .null, forKey: .value) }
    }
}
