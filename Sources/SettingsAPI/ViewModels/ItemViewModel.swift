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
    /// The text of an item's members that come from its schema (everything but `display`, `layer`, `locked`,
    /// `modified` and `value`), made once: ``write(_:into:)`` appends the bytes of ``writeJSONText(into:)`` for any
    /// item it ``matches(_:)``, copying those parts instead of writing them again. A `Set` reply holds two items of
    /// one key, and a key's schema members are the same in every reply about it.
    public final class TextTemplate: Sendable {
        /// The item the template was made from; only its schema members are used.
        private let source: ItemViewModel
        /// The text before `display`'s value, between it and `layer`'s, between that and `locked`'s, between that and
        /// `modified`'s, and between that and `value`'s.
        private let beforeDisplay: [UInt8]
        private let beforeLayer: [UInt8]
        private let beforeLocked: [UInt8]
        private let beforeModified: [UInt8]
        private let beforeValue: [UInt8]

        /// The template of `item`'s key, as its schema members are in `item`.
        public init(_ item: ItemViewModel) {
            self.source = item
            func name(_ key: CodingKeys, into out: inout [UInt8], first: Bool = false) {
                if !first { out.append(UInt8(ascii: ",")) }
                JSONValue.writeString(key.stringValue, into: &out)
                out.append(UInt8(ascii: ":"))
            }
            var display: [UInt8] = [UInt8(ascii: "{")]
            if let constraint = item.constraint {
                name(.constraint, into: &display, first: true)
                JSONValue.writeString(constraint, into: &display)
            }
            name(.defaultValue, into: &display, first: item.constraint == nil)
            item.defaultValue.write(into: &display)
            name(.defaultDisplay, into: &display)
            JSONValue.writeString(item.defaultDisplay, into: &display)
            name(.display, into: &display)
            var layer: [UInt8] = []
            name(.id, into: &layer)
            JSONValue.writeString(item.id, into: &layer)
            name(.key, into: &layer)
            JSONValue.writeString(item.key, into: &layer)
            name(.layer, into: &layer)
            var locked: [UInt8] = []
            if let limits = item.limits {
                name(.limits, into: &locked)
                limits.writeJSONText(into: &locked)
            }
            name(.locked, into: &locked)
            var modified: [UInt8] = []
            name(.modified, into: &modified)
            var value: [UInt8] = []
            name(.summary, into: &value)
            JSONValue.writeString(item.summary, into: &value)
            name(.title, into: &value)
            JSONValue.writeString(item.title, into: &value)
            name(.type, into: &value)
            JSONValue.writeString(item.type, into: &value)
            name(.value, into: &value)
            self.beforeDisplay = display
            self.beforeLayer = layer
            self.beforeLocked = locked
            self.beforeModified = modified
            self.beforeValue = value
        }

        /// Whether `item`'s schema members are those the template was made from.
        public func matches(_ item: ItemViewModel) -> Bool {
            let source = self.source
            return item.key == source.key && item.id == source.id && item.title == source.title
                && item.summary == source.summary && item.type == source.type
                && item.defaultDisplay == source.defaultDisplay && item.constraint == source.constraint
                && item.defaultValue == source.defaultValue && item.limits == source.limits
        }

        /// Appends `item` as ``writeJSONText(into:)`` does; `item` must match the template.
        public func write(_ item: ItemViewModel, into out: inout [UInt8]) {
            assert(self.matches(item), "TextTemplate: an item of another schema")
            out.append(contentsOf: self.beforeDisplay)
            JSONValue.writeString(item.display, into: &out)
            out.append(contentsOf: self.beforeLayer)
            JSONValue.writeString(item.layer.rawValue, into: &out)
            out.append(contentsOf: self.beforeLocked)
            out.append(contentsOf: (item.locked ? "true" : "false").utf8)
            out.append(contentsOf: self.beforeModified)
            out.append(contentsOf: (item.modified ? "true" : "false").utf8)
            out.append(contentsOf: self.beforeValue)
            item.value.write(into: &out)
            out.append(UInt8(ascii: "}"))
        }
    }
}

extension ItemViewModel {
    /// The words that stand for no value where a view shows one that may be missing (a layer without one, a key a
    /// change adds or removes). No `display` reads so: a value that would is displayed as its JSON, `"(none)"`.
    public static let noValueText = "(none)"
}
