/// One layer of a key in an explanation (the IDL's `LayerValue`).
public struct LayerValueViewModel: Sendable, Hashable, Codable {
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
}

/// The reply of `Explain`: every layer of a key and the one that wins.
public struct ExplainViewModel: Sendable, Hashable, Codable {
    public var item: ItemViewModel
    public var layers: [LayerValueViewModel]
    public var winner: LayerName
    public var revision: Int64
    /// The revision of the remote source in force, when remote sync is on.
    public var remoteRevision: String?
    /// Why the schema rejected the fleet's value of this key in the last remote update (`must be within 1..65535
    /// (mandatory)`); the last known good value stays in force. Absent when none was rejected.
    public var rejected: [String]?
    /// Values stored for this key that the schema does not accept now (a schema changed since), so ignored, each as
    /// `LAYER VALUE: reason` (`local 500: must be within 0..100`). Absent when there is none.
    public var ignored: [String]?

    public init(
        item: ItemViewModel,
        layers: [LayerValueViewModel],
        winner: LayerName,
        revision: Int64,
        remoteRevision: String? = nil,
        rejected: [String]? = nil,
        ignored: [String]? = nil
    ) {
        self.item = item
        self.layers = layers
        self.winner = winner
        self.revision = revision
        self.remoteRevision = remoteRevision
        self.rejected = rejected
        self.ignored = ignored
    }
}
