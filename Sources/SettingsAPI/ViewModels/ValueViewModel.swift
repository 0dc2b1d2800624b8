/// The reply of `Get`: one item and its module's revision.
public struct ValueViewModel: Sendable, Hashable {
    public var item: ItemViewModel
    public var revision: Int64

    public init(item: ItemViewModel, revision: Int64) {
        self.item = item
        self.revision = revision
    }

    /// The wire form.
    public var json: JSONValue { ["item": self.item.json, "revision": .int(self.revision)] }

    /// Reads the wire form.
    public init(json: JSONValue) throws(JSONDecodingError) {
        self.item = try json.nested("item") { value throws(JSONDecodingError) in try ItemViewModel(json: value) }
        self.revision = try json.int("revision")
    }
}

/// The reply of `Set`: the item after and before, and whether anything changed.
public struct SetResultViewModel: Sendable, Hashable {
    public var item: ItemViewModel
    public var previous: ItemViewModel
    public var changed: Bool
    public var revision: Int64

    public init(item: ItemViewModel, previous: ItemViewModel, changed: Bool, revision: Int64) {
        self.item = item
        self.previous = previous
        self.changed = changed
        self.revision = revision
    }

    /// The wire form.
    public var json: JSONValue {
        [
            "item": self.item.json, "previous": self.previous.json, "changed": .bool(self.changed),
            "revision": .int(self.revision),
        ]
    }

    /// Reads the wire form.
    public init(json: JSONValue) throws(JSONDecodingError) {
        self.item = try json.nested("item") { value throws(JSONDecodingError) in try ItemViewModel(json: value) }
        self.previous = try json.nested("previous") { value throws(JSONDecodingError) in
            try ItemViewModel(json: value)
        }
        self.changed = try json.bool("changed")
        self.revision = try json.int("revision")
    }
}

/// The reply of `Reset`: the items after the reset.
public struct ResetResultViewModel: Sendable, Hashable {
    public var items: [ItemViewModel]
    public var changed: Bool
    public var revision: Int64

    public init(items: [ItemViewModel], changed: Bool, revision: Int64) {
        self.items = items
        self.changed = changed
        self.revision = revision
    }

    /// The wire form.
    public var json: JSONValue {
        ["items": .array(self.items.map(\.json)), "changed": .bool(self.changed), "revision": .int(self.revision)]
    }

    /// Reads the wire form.
    public init(json: JSONValue) throws(JSONDecodingError) {
        self.items = try json.array("items") { element throws(JSONDecodingError) in try ItemViewModel(json: element) }
        self.changed = try json.bool("changed")
        self.revision = try json.int("revision")
    }
}
