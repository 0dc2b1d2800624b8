/// The reply of `Get`: one item and its module's revision.
public struct ValueViewModel: Sendable, Hashable, Codable {
    public var item: ItemViewModel
    public var revision: Int64

    public init(item: ItemViewModel, revision: Int64) {
        self.item = item
        self.revision = revision
    }
}

/// The reply of `Set`: the item after and before, and whether anything changed.
public struct SetResultViewModel: Sendable, Hashable, Codable {
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
}

/// The reply of `Reset`: the items after the reset.
public struct ResetResultViewModel: Sendable, Hashable, Codable {
    public var items: [ItemViewModel]
    public var changed: Bool
    public var revision: Int64

    public init(items: [ItemViewModel], changed: Bool, revision: Int64) {
        self.items = items
        self.changed = changed
        self.revision = revision
    }
}
