import Core
import Foundation

/// What a client does with a STATE_PATCH: RFC 6902's `add`, `remove` and `replace` applied to the
/// projection it has. Written from the RFC, apart from the box's own code, to check that code.
extension JSONValue {
    struct PatchFailure: Error, CustomStringConvertible {
        var description: String
    }

    init(json text: String) throws {
        self = try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
    }

    subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    func applying(_ operations: [PatchOperation]) throws -> JSONValue {
        var document = self
        for operation in operations {
            let tokens = try Self.tokens(of: operation.path)
            try document.apply(operation.op, at: tokens[...], value: operation.value ?? .null)
        }
        return document
    }

    private static func tokens(of pointer: String) throws -> [String] {
        guard pointer.hasPrefix("/") else { throw PatchFailure(description: "bad pointer \(pointer)") }
        return pointer.dropFirst().split(separator: "/", omittingEmptySubsequences: false).map {
            $0.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
        }
    }

    private mutating func apply(_ op: String, at tokens: ArraySlice<String>, value: JSONValue) throws {
        guard let token = tokens.first else { throw PatchFailure(description: "empty path") }
        let last = tokens.count == 1
        switch self {
        case .object(var members):
            if last {
                switch op {
                case "add": members[token] = value
                case "replace":
                    guard members[token] != nil else { throw PatchFailure(description: "replace of missing \(token)") }
                    members[token] = value
                case "remove":
                    guard members.removeValue(forKey: token) != nil else {
                        throw PatchFailure(description: "remove of missing \(token)")
                    }
                default: throw PatchFailure(description: "unknown op \(op)")
                }
            } else {
                guard var child = members[token] else { throw PatchFailure(description: "no member \(token)") }
                try child.apply(op, at: tokens.dropFirst(), value: value)
                members[token] = child
            }
            self = .object(members)
        case .array(var elements):
            if last, op == "add", token == "-" {
                elements.append(value)
            } else {
                guard let index = Int(token),
                    elements.indices.contains(index) || (op == "add" && index == elements.count)
                else { throw PatchFailure(description: "bad index \(token) of \(elements.count)") }
                if last {
                    switch op {
                    case "add": elements.insert(value, at: index)
                    case "replace": elements[index] = value
                    case "remove": elements.remove(at: index)
                    default: throw PatchFailure(description: "unknown op \(op)")
                    }
                } else {
                    try elements[index].apply(op, at: tokens.dropFirst(), value: value)
                }
            }
            self = .array(elements)
        default:
            throw PatchFailure(description: "path goes through a scalar at \(token)")
        }
    }
}

extension TestSocket {
    /// What a client taking patches had after each STATE_PATCH it received (`patched`) and after the
    /// last message of either kind (`last`), and how many snapshots came whole. A patch whose
    /// `baseVersion` is not the version it applies to, or that does not apply, fails the test.
    func patchedStates() async throws -> (patched: [JSONValue], last: JSONValue?, whole: Int) {
        var state: JSONValue?
        var patched: [JSONValue] = []
        var whole = 0
        for text in await allTexts() {
            let message = try JSONValue(json: text)
            switch message["type"] {
            case .string("STATE_SNAPSHOT"):
                state = message["payload"]
                whole += 1
            case .string("STATE_PATCH"):
                let decoded = try JSONDecoder().decode(ServerMessage.self, from: Data(text.utf8))
                guard case .statePatch(let patch) = decoded.event, let base = state else {
                    throw JSONValue.PatchFailure(description: "a patch before any snapshot")
                }
                guard base["version"] == .number(Double(patch.baseVersion)) else {
                    throw JSONValue.PatchFailure(description: "patch from \(patch.baseVersion) to \(base["version"]!)")
                }
                let next = try base.applying(patch.ops)
                guard next["version"] == .number(Double(patch.version)) else {
                    throw JSONValue.PatchFailure(description: "patch to \(patch.version) gave another version")
                }
                state = next
                patched.append(next)
            default: continue
            }
        }
        return (patched, state, whole)
    }
}
