/// The changes of effective values one revision of a module made: one set, reset, load, remote update or schema
/// reload.
public struct ChangeRecord: Sendable, Hashable {
    /// The module's revision after the change.
    public var revision: Int64
    public var cause: ChangeCause
    /// The keys whose effective value changed, never empty.
    public var changes: [SettingChange]

    public init(revision: Int64, cause: ChangeCause, changes: [SettingChange]) {
        self.revision = revision
        self.cause = cause
        self.changes = changes
    }
}
