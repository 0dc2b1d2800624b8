/// One setting with its effective value, ready to show (the IDL's `Item`).
public struct ItemViewModel: Sendable, Hashable {
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
        constraint: String?
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
    }

    /// The wire form.
    public var json: JSONValue {
        var object: [String: JSONValue] = [
            "key": .string(self.key), "id": .string(self.id), "title": .string(self.title),
            "summary": .string(self.summary), "type": .string(self.type), "value": self.value,
            "display": .string(self.display), "layer": .string(self.layer.rawValue),
            "modified": .bool(self.modified), "locked": .bool(self.locked), "default": self.defaultValue,
            "defaultDisplay": .string(self.defaultDisplay),
        ]
        if let constraint = self.constraint { object["constraint"] = .string(constraint) }
        return .object(object)
    }

    /// Reads the wire form.
    public init(json: JSONValue) throws(JSONDecodingError) {
        self.key = try json.string("key")
        self.id = try json.string("id")
        self.title = try json.string("title")
        self.summary = try json.string("summary")
        self.type = try json.string("type")
        self.value = try json.required("value")
        self.display = try json.string("display")
        self.layer = try LayerName(json: try json.required("layer"), field: "layer")
        self.modified = try json.bool("modified")
        self.locked = try json.bool("locked")
        self.defaultValue = try json.required("default")
        self.defaultDisplay = try json.string("defaultDisplay")
        self.constraint = try json.optionalString("constraint")
    }
}
