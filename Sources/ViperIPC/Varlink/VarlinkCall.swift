public import SettingsAPI

/// One method call as received.
public struct VarlinkCall: Sendable, Hashable {
    /// The fully qualified method name, e.g. `io.viper.settings.Get`.
    public var method: String
    /// The call's parameters; an absent or `null` `parameters` member arrives as an empty object.
    public var parameters: [String: JSONValue]
    /// Whether the client asked for several replies (`more: true`).
    public var more: Bool
    /// Whether the client wants no reply at all (`oneway: true`).
    public var oneway: Bool

    /// Creates a call from its parts.
    public init(method: String, parameters: [String: JSONValue] = [:], more: Bool = false, oneway: Bool = false) {
        self.method = method
        self.parameters = parameters
        self.more = more
        self.oneway = oneway
    }

    /// Refuses a parameter the method does not declare: `InvalidParameter` naming the first one not in `taken`, in
    /// sorted order (a misspelt `dryRun` must not make a call do something else), as systemd's servers answer.
    public func refuseParameters(except taken: Set<String>) throws(VarlinkError) {
        guard let unknown = self.parameters.keys.filter({ !taken.contains($0) }).min() else { return }
        throw .invalidParameter(unknown)
    }

    /// The interface part of ``method``: everything before the last dot (all of it if there is no dot).
    public var interfaceName: String {
        // Searched in the UTF-8 bytes: a character-wise search walks grapheme clusters, on every call.
        // A name without a dot names no interface: the whole of it is what the error repeats.
        guard let dot = self.method.utf8.lastIndex(of: UInt8(ascii: ".")) else { return self.method }
        return String(self.method[..<dot])
    }

    /// The bare method name: everything after the last dot.
    public var methodName: String {
        guard let dot = self.method.utf8.lastIndex(of: UInt8(ascii: ".")) else { return self.method }
        return String(self.method[self.method.utf8.index(after: dot)...])
    }
}
