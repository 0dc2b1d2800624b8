import NIOCore
import SettingsAPI

/// One reply as it goes on the wire: only the members `parameters`, `continues` and `error`.
struct VarlinkReply: Sendable, Hashable {
    /// The reply's parameters; a value that is not an object is sent as an empty object.
    var parameters: JSONValue
    /// Whether more replies to the same call follow; sent only when true.
    var continues: Bool = false
    /// The fully qualified error name for an error reply.
    var error: String?

    /// An error reply.
    init(error: VarlinkError) {
        self.parameters = error.parameters
        self.error = error.name
    }

    /// A normal reply.
    init(parameters: JSONValue, continues: Bool) {
        self.parameters = parameters
        self.continues = continues
    }

    /// The reply as JSON text followed by a NUL byte.
    func encoded() -> ByteBuffer {
        var members: [String: JSONValue] = [:]
        if case .object = self.parameters {
            members["parameters"] = self.parameters
        } else {
            members["parameters"] = .object([:])
        }
        if self.continues {
            members["continues"] = .bool(true)
        }
        if let error = self.error {
            members["error"] = .string(error)
        }
        var bytes: [UInt8] = []
        JSONValue.object(members).write(into: &bytes)
        bytes.append(0)
        return ByteBuffer(bytes: bytes)
    }
}
