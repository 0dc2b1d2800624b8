public import SettingsAPI

/// Where a value comes from, weakest first. The wire's ``SettingsAPI/LayerName``.
public typealias Layer = LayerName

/// One item of a module with its value in every layer and the value that wins.
public struct ResolvedSetting: Sendable, Hashable {
    public var key: SettingKey
    public var item: ItemSchema
    /// The value of each layer that holds one (and fits the schema), the default always.
    public var layers: LayerValues
    /// The strongest layer holding a value.
    public var winner: Layer
    /// Stored values of this key that the schema does not accept now (a schema changed since they were stored), so
    /// ignored: weakest layer first. Usually empty.
    public var ignored: [IgnoredValue] = []

    /// A stored value the schema rejects, and why.
    public struct IgnoredValue: Sendable, Hashable {
        public var layer: Layer
        public var value: SettingValue
        public var reason: String
    }

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
        // Weakest first: the last layer holding a valid value wins.
        var layers = LayerValues()
        layers[.default] = item.defaultValue
        var winner = Layer.default
        var ignored: [IgnoredValue] = []
        func take(_ layer: Layer, from stored: [String: SettingValue]) {
            guard let value = stored[path] else { return }
            do {
                layers[layer] = try item.type.checked(value)
                winner = layer
            } catch {
                ignored.append(IgnoredValue(layer: layer, value: value, reason: error.reason))
            }
        }
        take(.recommended, from: state.recommended)
        take(.local, from: state.local)
        take(.mandatory, from: state.mandatory)
        self.layers = layers
        self.winner = winner
        self.ignored = ignored
    }
}
