/// The stored layers of one module. Keys are `section.item`.
public struct ModuleState: Sendable, Hashable {
    /// +1 for every change of an effective value; persisted.
    public var revision: Int64
    /// Values set on this host.
    public var local: [String: SettingValue]
    /// Values recommended by the remote source.
    public var recommended: [String: SettingValue]
    /// Values mandated (locked) by the remote source.
    public var mandatory: [String: SettingValue]
    /// The remote source's revision of the remote layers (a document's revision, an ETag, an etcd revision), stored
    /// with them; `nil` when unknown.
    public var remoteRevision: String?

    public init(
        revision: Int64 = 0,
        local: [String: SettingValue] = [:],
        recommended: [String: SettingValue] = [:],
        mandatory: [String: SettingValue] = [:],
        remoteRevision: String? = nil
    ) {
        self.revision = revision
        self.local = local
        self.recommended = recommended
        self.mandatory = mandatory
        self.remoteRevision = remoteRevision
    }

    /// A module nothing was ever stored for.
    public static let empty = ModuleState()
}

/// A change of a module's local layer, computed by the Interactor and stored by a Repository.
public struct LocalChange: Sendable, Hashable {
    /// New local values by `section.item`.
    public var set: [String: SettingValue]
    /// Keys whose local value is removed.
    public var remove: Set<String>
    /// The module's revision after the change.
    public var revision: Int64

    public init(set: [String: SettingValue] = [:], remove: Set<String> = [], revision: Int64) {
        self.set = set
        self.remove = remove
        self.revision = revision
    }

    /// Applies the change to a state.
    public func applied(to state: ModuleState) -> ModuleState {
        var result = state
        for key in self.remove { result.local[key] = nil }
        for (key, value) in self.set { result.local[key] = value }
        result.revision = self.revision
        return result
    }
}
