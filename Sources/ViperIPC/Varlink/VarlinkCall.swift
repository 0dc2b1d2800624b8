public import SettingsAPI

/// One method call as received.
public struct VarlinkCall: Sendable, Hashable {
    /// The fully qualified method name, e.g. `io.viper.settings.Get`.
    public let method: String
    /// The interface part of ``method``: everything before the last dot (all of it if there is no dot: a name
    /// without a dot names no interface, and the whole of it is what the error repeats).
    public let interfaceName: String
    /// The bare method name: everything after the last dot.
    public let methodName: String
    /// The call's parameters; an absent or `null` `parameters` member arrives as an empty object.
    public var parameters: [String: JSONValue]
    /// Whether the client asked for several replies (`more: true`).
    public var more: Bool
    /// Whether the client wants no reply at all (`oneway: true`).
    public var oneway: Bool

    /// Creates a call from its parts.
    public init(method: String, parameters: [String: JSONValue] = [:], more: Bool = false, oneway: Bool = false) {
        self.method = method
        // Split once, at the last dot of the UTF-8 bytes (a character-wise search walks grapheme clusters): both
        // parts are read several times per call.
        if let dot = method.utf8.lastIndex(of: UInt8(ascii: ".")) {
            self.interfaceName = String(method[..<dot])
            self.methodName = String(method[method.utf8.index(after: dot)...])
        } else {
            self.interfaceName = method
            self.methodName = method
        }
        self.parameters = parameters
        self.more = more
        self.oneway = oneway
    }

    /// Refuses a parameter the method does not declare: `InvalidParameter` naming the first one not in `taken`, in
    /// sorted order (a misspelt `dryRun` must not make a call do something else), as systemd's servers answer.
    public func refuseParameters(except taken: Set<String>) throws(VarlinkError) {
        var unknown: String?
        for name in self.parameters.keys where !taken.contains(name) {
            if unknown.map({ name < $0 }) ?? true { unknown = name }
        }
        if let unknown { throw .invalidParameter(unknown) }
    }
}
