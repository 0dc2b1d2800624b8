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

extension ItemViewModel {
    /// Appends the item as compact JSON text: the bytes ``JSONValueEncoder/encodeText(_:)`` writes for it, written
    /// directly (members in the order of their keys).
    public func writeJSONText(into out: inout [UInt8]) {
        JSONObjectText<CodingKeys>.write(into: &out) { object in
            object.member(.constraint, self.constraint)
            object.member(.defaultValue, self.defaultValue)
            object.member(.defaultDisplay, self.defaultDisplay)
            object.member(.display, self.display)
            object.member(.id, self.id)
            object.member(.key, self.key)
            object.member(.layer, self.layer.rawValue)
            if let limits = self.limits { object.member(.limits) { limits.writeJSONText(into: &$0) } }
            object.member(.locked, self.locked)
            object.member(.modified, self.modified)
            object.member(.summary, self.summary)
            object.member(.title, self.title)
            object.member(.type, self.type)
            object.member(.value, self.value)
        }
    }
}

extension ItemViewModel {
    /// The words that stand for no value where a view shows one that may be missing (a layer without one, a key a
    /// change adds or removes). No `display` reads so: a value that would is displayed as its JSON, `"(none)"`.
    public static let noValueText = "(none)"
}
