/// The reply of `Dump`, and the file format of `settingsctl dump` and `settingsctl load`: modules by name.
public struct DumpViewModel: Sendable, Hashable, Codable {
    public var modules: [String: ModuleDumpViewModel]

    public init(modules: [String: ModuleDumpViewModel]) {
        self.modules = modules
    }
}

/// One module of a dump: its revision and its local values.
public struct ModuleDumpViewModel: Sendable, Hashable, Codable {
    /// The module's revision when it was dumped: what `load --if-revision` compares with. Load ignores it.
    public var revision: Int64
    /// The local values, by key within the module (`section.item`), typed as the schema says.
    public var values: [String: JSONValue]
    /// With `effective`: every key's effective value and the layer it comes from. Load ignores it.
    public var effective: [String: EffectiveValueViewModel]?

    public init(revision: Int64, values: [String: JSONValue], effective: [String: EffectiveValueViewModel]? = nil) {
        self.revision = revision
        self.values = values
        self.effective = effective
    }
}

/// A key's effective value and its layer, in a dump with `effective`.
public struct EffectiveValueViewModel: Sendable, Hashable, Codable {
    public var value: JSONValue
    public var layer: LayerName

    public init(value: JSONValue, layer: LayerName) {
        self.value = value
        self.layer = layer
    }
}
