/// One setting with its effective value, ready to show (the IDL's `Item`).
public struct ItemViewModel: Sendable, Hashable, Codable {
    public var key: String
    public var id: String
    public var title: String
    public var summary: String
    /// `bool`, `int`, `double`, `string` or `strings`.
    public var type: String
    /// The typed value, for scripts.
    public var value: JSONValue
    /// The value as people read it.
    public var display: String
    public var layer: LayerName
    public var modified: Bool
    public var locked: Bool
    public var defaultValue: JSONValue
    public var defaultDisplay: String
    /// What values are allowed, in words.
    public var constraint: String?
    /// What values are allowed, as data; `nil` for a `bool`.
    public var limits: LimitsViewModel?

    private enum CodingKeys: String, CodingKey {
        case key, id, title, summary, type, value, display, layer, modified, locked
        case defaultValue = "default"
        case defaultDisplay, constraint, limits
    }

    public init(
        key: String,
        id: String,
        title: String,
        summary: String,
        type: String,
        value: JSONValue,
        display: String,
        layer: LayerName,
        modified: Bool,
        locked: Bool,
        defaultValue: JSONValue,
        defaultDisplay: String,
        constraint: String?,
        limits: LimitsViewModel? = nil
    ) {
        self.key = key
        self.id = id
        self.title = title
        self.summary = summary
        self.type = type
        self.value = value
        self.display = display
        self.layer = layer
        self.modified = modified
        self.locked = locked
        self.defaultValue = defaultValue
        self.defaultDisplay = defaultDisplay
        self.constraint = constraint
        self.limits = limits
    }
}
