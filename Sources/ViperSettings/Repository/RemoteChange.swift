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

    public init(
        recommended: [String: SettingValue],
        mandatory: [String: SettingValue],
        revision: Int64,
        remoteRevision: String? = nil
    ) {
        self.recommended = recommended
        self.mandatory = mandatory
        self.revision = revision
        self.remoteRevision = remoteRevision
    }

    /// Applies the change to a state.
    public func applied(to state: ModuleState) -> ModuleState {
        var result = state
        result.recommended = self.recommended
        result.mandatory = self.mandatory
        result.revision = self.revision
        if let remoteRevision = self.remoteRevision { result.remoteRevision = remoteRevision }
        return result
    }
}
