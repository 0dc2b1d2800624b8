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

extension ValueViewModel {
    /// Appends the reply as compact JSON text: the bytes ``JSONValueEncoder/encodeText(_:)`` writes for it, written
    /// directly.
    public func writeJSONText(into out: inout [UInt8]) {
        self.writeJSONText(into: &out) { item, out in item.writeJSONText(into: &out) }
    }

    /// Appends the reply as ``writeJSONText(into:)`` does, its item written by `writeItem` (which must write the
    /// same bytes, as an ``ItemViewModel/TextTemplate`` does).
    public func writeJSONText(into out: inout [UInt8], item writeItem: (ItemViewModel, inout [UInt8]) -> Void) {
        JSONObjectText<CodingKeys>.write(into: &out) { object in
            object.member(.item) { writeItem(self.item, &$0) }
            object.member(.revision, self.revision)
        }
    }
}

extension SetResultViewModel {
    /// Appends the reply as compact JSON text: the bytes ``JSONValueEncoder/encodeText(_:)`` writes for it, written
    /// directly.
    public func writeJSONText(into out: inout [UInt8]) {
        self.writeJSONText(into: &out) { item, out in item.writeJSONText(into: &out) }
    }

    /// Appends the reply as ``writeJSONText(into:)`` does, its items written by `writeItem` (which must write the
    /// same bytes, as an ``ItemViewModel/TextTemplate`` does).
    public func writeJSONText(into out: inout [UInt8], item writeItem: (ItemViewModel, inout [UInt8]) -> Void) {
        JSONObjectText<CodingKeys>.write(into: &out) { object in
            object.member(.changed, self.changed)
            object.member(.item) { writeItem(self.item, &$0) }
            object.member(.previous) { writeItem(self.previous, &$0) }
            object.member(.revision, self.revision)
        }
    }
}
