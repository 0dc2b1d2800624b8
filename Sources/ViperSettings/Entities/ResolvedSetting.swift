public import SettingsAPI

/// Where a value comes from, weakest first. The wire's ``SettingsAPI/LayerName``.
public typealias Layer = LayerName

/// One item of a module with its value in every layer and the value that wins.
public struct ResolvedSetting: Sendable, Hashable {
    public var key: SettingKey
    public var item: ItemSchema
    /// The value of each layer that holds one (and fits the schema), the default always.
    public var layers: [Layer: SettingValue]
    /// The strongest layer holding a value.
    public var winner: Layer

    /// The effective value.
    public var value: SettingValue { self.layers[self.winner]! }
    /// True when the fleet mandates the value.
    public var isLocked: Bool { self.layers[.mandatory] != nil }
    /// True when the value does not come from the schema default.
    public var isModified: Bool { self.winner != .default }

    /// Resolves an item against a module state: mandatory > local > recommended > default. Stored values that no
    /// longer fit the schema are ignored.
    public init(module: String, sectionID: String, item: ItemSchema, state: ModuleState) {
        self.key = SettingKey(module: module, section: sectionID, item: item.id)
        self.item = item
        let path = self.key.path
        var layers: [Layer: SettingValue] = [.default: item.defaultValue]
        let stored: [(Layer, SettingValue?)] = [
            (.recommended, state.recommended[path]), (.local, state.local[path]), (.mandatory, state.mandatory[path]),
        ]
        for (layer, value) in stored {
            if let value, let valid = try? item.type.checked(value) { layers[layer] = valid }
        }
        self.layers = layers
        self.winner = Layer.allCases.last { layers[$0] != nil }!
    }
}
