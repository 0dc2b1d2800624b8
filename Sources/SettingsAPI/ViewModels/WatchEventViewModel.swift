/// One reply of `Watch`: a current value, the end of the current values, a change, or a resync.
public struct WatchEventViewModel: Sendable, Hashable, Codable {
    /// What the event is.
    public enum Kind: String, Sendable, Hashable, Codable {
        /// A key's value at the start of the stream or after a resync.
        case current
        /// Every current value was sent; changes follow.
        case ready
        /// A key's effective value changed.
        case change
        /// The stream starts over: the current values follow.
        case resync
    }

    public var event: Kind
    /// Where the stream is after this event: pass it as `after` to resume after it.
    public var cursor: String
    /// `module.section.item`, for current and change.
    public var key: String?
    /// The effective value (absent when a schema reload removed the key).
    public var value: JSONValue?
    public var display: String?
    public var layer: LayerName?
    /// For a change: the value before (absent when a schema reload added the key).
    public var old: JSONValue?
    public var oldDisplay: String?
    public var oldLayer: LayerName?
    /// The module's revision of the value, or of the change.
    public var revision: Int64?
    /// For a change: who made it, `client`, `remote` or `schema`.
    public var cause: String?
    /// For a change by a client: its uid and pid.
    public var uid: Int64?
    public var pid: Int64?
    /// For a remote change: the remote source's revision, when known.
    public var remoteRevision: String?
    /// For a resync: why, in words.
    public var reason: String?

    public init(event: Kind, cursor: String) {
        self.event = event
        self.cursor = cursor
    }
}
