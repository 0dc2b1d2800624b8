public import SettingsAPI

/// How far a load goes.
public enum LoadMode: Sendable, Hashable {
    /// Computes what would change; anyone may ask, nothing is written. A module not at its `ifRevision`
    /// (``SettingsFailure/revisionMismatch(module:expected:actual:)``) or one the Repository already knows would
    /// refuse the write (``SettingsFailure/storageFailure(module:reason:)``) is refused, as the load would be.
    case preview
    /// Like ``preview``, and also lists a caller who may not write the module among the problems, so that a load of
    /// several modules writes none.
    case verify
    /// Validates, then stores every value of the module in one durable write; any problem refuses it
    /// (``SettingsFailure/loadRefused(problems:)``).
    case apply
}

/// What a load asks of one module.
public struct LoadRequest: Sendable, Hashable {
    /// The values to load, by key within the module (`section.item`).
    public var values: [String: JSONValue]
    /// Also remove the local values of keys absent from ``values``.
    public var replace: Bool
    /// Refuse unless the module's revision is this one (compare-and-set).
    public var ifRevision: Int64?
    public var mode: LoadMode

    public init(values: [String: JSONValue], replace: Bool = false, ifRevision: Int64? = nil, mode: LoadMode) {
        self.values = values
        self.replace = replace
        self.ifRevision = ifRevision
        self.mode = mode
    }
}

/// Why one entry of a load cannot be applied, as facts.
public enum LoadProblem: Sendable, Hashable {
    /// `meant`: the module served whose name is closest to `module`, when one is close enough to be a typo.
    case noSuchModule(module: String, meant: String? = nil)
    /// `section`: the key names a section of the module (`"proxy": {…}` for `"proxy.port"`); `meant`: the key of
    /// the module it most likely meant (letter case, blanks at its ends, the module named in front, a typo).
    case noSuchKey(key: String, section: Bool = false, meant: String? = nil)
    /// `value` is the value as the file gave it, as JSON text (``SettingsAPI/JSONValue/givenText``): a string in
    /// quotes, so that `"80"` is told from `80`.
    case invalidValue(key: String, value: String, reason: String)
    case keyLocked(key: String, layer: Layer)
    /// The caller (`uid`) is neither root nor one of the module's `writers`.
    case permissionDenied(module: String, uid: UInt32, writers: Writers)
}

/// What a load did to one module, or with ``LoadMode/preview`` would do.
public struct LoadOutcome: Sendable, Hashable {
    /// A key whose local value the load changes, resolved before and after.
    public struct KeyChange: Sendable, Hashable {
        public var before: ResolvedSetting
        public var after: ResolvedSetting

        public init(before: ResolvedSetting, after: ResolvedSetting) {
            self.before = before
            self.after = after
        }
    }

    public var module: String
    /// Every key whose local value changes, sorted by key.
    public var changes: [KeyChange]
    /// Every value that cannot be applied (only when nothing was written).
    public var problems: [LoadProblem]
    /// The module's revision after the load (now, when nothing was written).
    public var revision: Int64

    public init(module: String, changes: [KeyChange], problems: [LoadProblem], revision: Int64) {
        self.module = module
        self.changes = changes
        self.problems = problems
        self.revision = revision
    }
}

/// A module's values as `dump` gives them.
public struct ModuleDump: Sendable, Hashable {
    /// The local values, by `section.item`, of the keys the schema has.
    public var local: [String: SettingValue]
    /// Every key resolved.
    public var settings: [ResolvedSetting]
    public var revision: Int64

    public init(local: [String: SettingValue], settings: [ResolvedSetting], revision: Int64) {
        self.local = local
        self.settings = settings
        self.revision = revision
    }
}
