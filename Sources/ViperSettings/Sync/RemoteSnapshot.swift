public import SettingsAPI

/// Everything a remote source says at one moment: per module, recommended and mandatory values by `section.item`,
/// as raw JSON, not yet checked against the schemas.
public struct RemoteSnapshot: Sendable, Hashable {
    /// The source's revision of this content: the document's `revision`, an HTTP ETag, or an etcd revision.
    public var revision: String
    /// Values by module name.
    public var modules: [String: RemoteModuleValues]
    /// What the source holds but could not turn into values (an etcd key outside the layout, a value that is not
    /// JSON): listed with the values the schemas reject.
    public var rejected: [RemoteRejection]

    public init(revision: String, modules: [String: RemoteModuleValues], rejected: [RemoteRejection] = []) {
        self.revision = revision
        self.modules = modules
        self.rejected = rejected
    }
}

/// The remote layers of one module, raw.
public struct RemoteModuleValues: Sendable, Hashable {
    public var recommended: [String: JSONValue]
    public var mandatory: [String: JSONValue]

    public init(recommended: [String: JSONValue] = [:], mandatory: [String: JSONValue] = [:]) {
        self.recommended = recommended
        self.mandatory = mandatory
    }
}
