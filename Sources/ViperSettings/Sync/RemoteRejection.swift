public import SettingsAPI

/// A remote value the daemon does not use, and why: a value its schema rejects (as the source sent it, or as it is
/// cached since a schema reload narrowed the key), a key or module no schema has, or a key the source holds that
/// does not fit its layout. `settingsctl status` lists them, sorted by module and key; `explain` shows those of a
/// key.
public struct RemoteRejection: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The module the value is for, as far as the key says.
    public var module: String
    /// `module.section.item`, the module name alone, or the key as the source wrote it (an etcd key that does not
    /// fit the layout).
    public var key: String
    /// Why, e.g. "must be within 1..1000".
    public var reason: String
    /// The layer the value was for, when known.
    public var layer: LayerName?

    /// Creates a rejection of the value at `key` (in `module`, for `layer`) because of `reason`.
    public init(module: String, key: String, reason: String, layer: LayerName? = nil) {
        self.module = module
        self.key = key
        self.reason = reason
        self.layer = layer
    }

    /// `module.section.item: reason (layer)`, as `status` lists it and `explain` finds it.
    public var description: String {
        guard let layer = self.layer else { return "\(self.key): \(self.reason)" }
        return "\(self.key): \(self.reason) (\(layer.rawValue))"
    }

    /// The longest value text, in bytes of UTF-8, that a rejection shows in full.
    static let valueTextLimit = 100

    /// A rejected value as compact JSON for the reason (`value 9000: must be within 1..5000`); when longer than
    /// ``valueTextLimit`` bytes, its start and `… (N bytes)`: a remote value may be as large as a document.
    static func valueText(_ json: JSONValue) -> String {
        SettingValue.shown(json: json.serialized(), limit: Self.valueTextLimit)
    }

    /// By module, then key, then layer and reason: the order of `status`, the same at every run.
    public static func < (lhs: RemoteRejection, rhs: RemoteRejection) -> Bool {
        (lhs.module, lhs.key, lhs.layer?.rawValue ?? "", lhs.reason)
            < (rhs.module, rhs.key, rhs.layer?.rawValue ?? "", rhs.reason)
    }
}
