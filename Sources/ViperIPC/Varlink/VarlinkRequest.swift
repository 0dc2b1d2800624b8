import NIOCore
import SettingsAPI

/// One received message, classified: a call to dispatch, a call to answer with an error, or a protocol
/// violation that closes the connection.
enum VarlinkRequest: Sendable {
    /// A well-formed call.
    case call(VarlinkCall)
    /// A call whose fields are invalid: answer with `error` unless the call is `oneway`.
    case invalid(method: String, oneway: Bool, error: VarlinkError)
    /// Not a Varlink call at all; the connection is closed.
    case protocolViolation(reason: String)

    /// Classifies one message (the JSON text without its NUL terminator).
    init(message: ByteBuffer) {
        let parsed = message.withUnsafeReadableBytes { bytes in
            Result { () throws(JSONParseError) in try JSONValue(parsing: bytes) }
        }
        switch parsed {
        case .failure(let error):
            self = .protocolViolation(reason: "message is not valid JSON: \(error)")
        case .success(let value):
            self = Self(value: value)
        }
    }

    /// Classifies one parsed message.
    init(value: JSONValue) {
        guard case .object(let members) = value else {
            self = .protocolViolation(reason: "message is a JSON \(value.typeName), not an object")
            return
        }
        guard case .string(let method) = members["method"] else {
            self = .protocolViolation(reason: "message has no string member 'method'")
            return
        }
        // An invalid `oneway` counts as false: the client then gets the InvalidParameter reply.
        let oneway = Self.flag(members["oneway"])
        guard let oneway else {
            self = .invalid(method: method, oneway: false, error: .invalidParameter("oneway"))
            return
        }
        guard let more = Self.flag(members["more"]) else {
            self = .invalid(method: method, oneway: oneway, error: .invalidParameter("more"))
            return
        }
        if oneway && more {
            self = .protocolViolation(reason: "call to \(QuotedText.quote(method)) sets both 'oneway' and 'more'")
            return
        }
        // No interface served here supports connection upgrades.
        guard let upgrade = Self.flag(members["upgrade"]), !upgrade else {
            self = .invalid(method: method, oneway: oneway, error: .invalidParameter("upgrade"))
            return
        }
        let parameters: [String: JSONValue]
        switch members["parameters"] {
        case nil, .null:
            parameters = [:]
        case .object(let object):
            parameters = object
        default:
            self = .invalid(method: method, oneway: oneway, error: .invalidParameter("parameters"))
            return
        }
        self = .call(VarlinkCall(method: method, parameters: parameters, more: more, oneway: oneway))
    }

    /// A Boolean call flag: absent or `null` is false; a value that is not a Boolean is `nil`.
    private static func flag(_ value: JSONValue?) -> Bool? {
        switch value {
        case nil, .null: false
        case .bool(let flag): flag
        default: nil
        }
    }
}
