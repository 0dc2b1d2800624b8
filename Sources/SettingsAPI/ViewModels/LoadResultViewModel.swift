/// The reply of `Load`: what changed (or, with `dryRun`, would change) in each module, and what was refused.
public struct LoadResultViewModel: Sendable, Hashable, Codable {
    /// Every module named in the call, in name order.
    public var modules: [ModuleLoadViewModel]
    /// Every unknown module or key, invalid value and locked key (only with `dryRun`: without it, any problem is
    /// the error `LoadRefused`).
    public var problems: [LoadProblemViewModel]
    /// True when the values were stored; false for a dry run.
    public var applied: Bool

    public init(modules: [ModuleLoadViewModel], problems: [LoadProblemViewModel], applied: Bool) {
        self.modules = modules
        self.problems = problems
        self.applied = applied
    }
}

/// One module of a load.
public struct ModuleLoadViewModel: Sendable, Hashable, Codable {
    public var module: String
    /// The module's revision after the load (with `dryRun`: now).
    public var revision: Int64
    /// True when a local value changed (with `dryRun`: would change).
    public var changed: Bool
    /// Every key whose local value changes, with its effective value and layer before and after, sorted by key.
    public var changes: [LoadChangeViewModel]

    public init(module: String, revision: Int64, changed: Bool, changes: [LoadChangeViewModel]) {
        self.module = module
        self.revision = revision
        self.changed = changed
        self.changes = changes
    }
}

/// A key whose local value a load changes: the effective value before and after.
public struct LoadChangeViewModel: Sendable, Hashable, Codable {
    /// `module.section.item`.
    public var key: String
    public var old: JSONValue
    public var oldDisplay: String
    public var oldLayer: LayerName
    public var value: JSONValue
    public var display: String
    public var layer: LayerName

    public init(
        key: String,
        old: JSONValue,
        oldDisplay: String,
        oldLayer: LayerName,
        value: JSONValue,
        display: String,
        layer: LayerName
    ) {
        self.key = key
        self.old = old
        self.oldDisplay = oldDisplay
        self.oldLayer = oldLayer
        self.value = value
        self.display = display
        self.layer = layer
    }
}

/// Why one entry of a load cannot be applied.
public struct LoadProblemViewModel: Sendable, Hashable, Codable {
    /// What is wrong.
    public enum Kind: String, Sendable, Hashable, Codable {
        /// No module of that name (`key` is the module).
        case noSuchModule
        /// The module has no such key.
        case noSuchKey
        /// The value does not fit the key's type or constraint.
        case invalidValue
        /// The fleet mandates the key's value; local writes are refused.
        case keyLocked
        /// The caller may not write the module (`key` is the module).
        case permissionDenied
    }

    /// `module.section.item`, or the module for `noSuchModule` and `permissionDenied`.
    public var key: String
    public var problem: Kind
    /// The reason in words.
    public var reason: String

    public init(key: String, problem: Kind, reason: String) {
        self.key = key
        self.problem = problem
        self.reason = reason
    }
}
