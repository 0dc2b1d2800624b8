/// One layer of a key in an explanation (the IDL's `LayerValue`).
public struct LayerValueViewModel: Sendable, Hashable {
    public var layer: LayerName
    public var present: Bool
    public var value: JSONValue?
    public var display: String?
    public var source: String

    public init(layer: LayerName, present: Bool, value: JSONValue?, display: String?, source: String) {
        self.layer = layer
        self.present = present
        self.value = value
        self.display = display
        self.source = source
    }

    /// The wire form.
    public var json: JSONValue {
        var object: [String: JSONValue] = [
            "layer": .string(self.layer.rawValue), "present": .bool(self.present), "source": .string(self.source),
        ]
        if let value = self.value { object["value"] = value }
        if let display = self.display { object["display"] = .string(display) }
        return .object(object)
    }

    /// Reads the wire form.
    public init(json: JSONValue) throws(JSONDecodingError) {
        self.layer = try LayerName(json: try json.required("layer"), field: "layer")
        self.present = try json.bool("present")
        self.value = json["value"].flatMap { $0 == .null ? nil : $0 }
        self.display = try json.optionalString("display")
        self.source = try json.string("source")
    }
}

/// The reply of `Explain`: every layer of a key and the one that wins.
public struct ExplainViewModel: Sendable, Hashable {
    public var item: ItemViewModel
    public var layers: [LayerValueViewModel]
    public var winner: LayerName
    public var revision: Int64
    /// The revision of the remote source in force, when remote sync is on.
    public var remoteRevision: String?

    public init(
        item: ItemViewModel,
        layers: [LayerValueViewModel],
        winner: LayerName,
        revision: Int64,
        remoteRevision: String? = nil
    ) {
        self.item = item
        self.layers = layers
        self.winner = winner
        self.revision = revision
        self.remoteRevision = remoteRevision
    }

    /// The wire form.
    public var json: JSONValue {
        var object: [String: JSONValue] = [
            "item": self.item.json, "layers": .array(self.layers.map(\.json)), "winner": .string(self.winner.rawValue),
            "revision": .int(self.revision),
        ]
        if let remoteRevision = self.remoteRevision { object["remoteRevision"] = .string(remoteRevision) }
        return .object(object)
    }

    /// Reads the wire form.
    public init(json: JSONValue) throws(JSONDecodingError) {
        self.item = try json.nested("item") { value throws(JSONDecodingError) in try ItemViewModel(json: value) }
        self.layers = try json.array("layers") { element throws(JSONDecodingError) in
            try LayerValueViewModel(json: element)
        }
        self.winner = try LayerName(json: try json.required("winner"), field: "winner")
        self.revision = try json.int("revision")
        self.remoteRevision = try json.optionalString("remoteRevision")
    }
}
