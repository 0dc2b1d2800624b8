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
    /// The latest changes of effective values, for watchers that resume.
    public var history: ChangeHistory

    public init(
        revision: Int64 = 0,
        local: [String: SettingValue] = [:],
        recommended: [String: SettingValue] = [:],
        mandatory: [String: SettingValue] = [:],
        remoteRevision: String? = nil,
        history: ChangeHistory? = nil
    ) {
        self.revision = revision
        self.local = local
        self.recommended = recommended
        self.mandatory = mandatory
        self.remoteRevision = remoteRevision
        self.history = history ?? ChangeHistory(floor: revision)
    }

    /// A module nothing was ever stored for.
    public static let empty = ModuleState()

    /// The layers of the key `path` only (revision and history left out): resolving that one key in it gives what
    /// it gives in the whole state, without copying a large module's layers to try a change.
    public func narrowed(to path: String) -> ModuleState {
        self.narrowed(to: CollectionOfOne(path))
    }

    /// The layers of the keys `paths` only: resolving any of them in it gives what it gives in the whole state.
    public func narrowed(to paths: some Sequence<String>) -> ModuleState {
        var narrowed = ModuleState()
        for path in paths {
            narrowed.local[path] = self.local[path]
            narrowed.recommended[path] = self.recommended[path]
            narrowed.mandatory[path] = self.mandatory[path]
        }
        return narrowed
    }
}

/// A change of a module's local layer, computed by the Interactor and stored by a Repository.
public struct LocalChange: Sendable, Hashable {
    /// New local values by `section.item`.
    public var set: [String: SettingValue]
    /// Keys whose local value is removed.
    public var remove: Set<String>
    /// The module's revision after the change.
    public var revision: Int64
    /// What the change did to effective values and who made it: the record kept in the module's history when the
    /// change moves the revision on. The Interactor fills it in.
    public var record: ChangeRecord?

    public init(
        set: [String: SettingValue] = [:],
        remove: Set<String> = [],
        revision: Int64,
        record: ChangeRecord? = nil
    ) {
        self.set = set
        self.remove = remove
        self.revision = revision
        self.record = record
    }

    /// Applies the change to a state.
    public func applied(to state: ModuleState) -> ModuleState {
        var result = state
        for key in self.remove { result.local[key] = nil }
        for (key, value) in self.set { result.local[key] = value }
        result.history.advance(to: self.revision, from: state.revision, record: self.record)
        result.revision = self.revision
        return result
    }
}
