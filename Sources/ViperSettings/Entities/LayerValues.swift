/// The value of each layer of one key, by ``Layer``: four slots rather than a dictionary, because every `get`, `set`
/// and watch event resolves a key, and a dictionary costs an allocation and a hash per layer.
public struct LayerValues: Sendable, Hashable {
    private var `default`: SettingValue?
    private var recommended: SettingValue?
    private var local: SettingValue?
    private var mandatory: SettingValue?

    /// No layer holds a value.
    public init() {}

    /// The value `layer` holds, if any.
    public subscript(layer: Layer) -> SettingValue? {
        get {
            switch layer {
            case .default: self.default
            case .recommended: self.recommended
            case .local: self.local
            case .mandatory: self.mandatory
            }
        }
        set {
            switch layer {
            case .default: self.default = newValue
            case .recommended: self.recommended = newValue
            case .local: self.local = newValue
            case .mandatory: self.mandatory = newValue
            }
        }
    }
}
