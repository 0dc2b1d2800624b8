/// A replacement of a module's remote layers, computed by the sync Interactor and stored by a Repository.
public struct RemoteChange: Sendable, Hashable {
    /// The module's recommended values after the change, by `section.item`.
    public var recommended: [String: SettingValue]
    /// The module's mandatory (locked) values after the change, by `section.item`.
    public var mandatory: [String: SettingValue]
    /// The module's revision after the change.
    public var revision: Int64
    /// The remote source's revision of these layers; `nil` keeps the stored one.
    public var remoteRevision: String?
    /// What the change did to effective values: the record kept in the module's history when the change moves the
    /// revision on.
    public var record: ChangeRecord?

    public init(
        recommended: [String: SettingValue],
        mandatory: [String: SettingValue],
        revision: Int64,
        remoteRevision: String? = nil,
        record: ChangeRecord? = nil
    ) {
        self.recommended = recommended
        self.mandatory = mandatory
        self.revision = revision
        self.remoteRevision = remoteRevision
        self.record = record
    }

    /// Applies the change to a state.
    public func applied(to state: ModuleState) -> ModuleState {
        var result = state
        result.recommended = self.recommended
        result.mandatory = self.mandatory
        result.history.advance(to: self.revision, from: state.revision, record: self.record)
        result.revision = self.revision
        if let remoteRevision = self.remoteRevision { result.remoteRevision = remoteRevision }
        return result
    }
}
