public import SettingsAPI

/// Stored values a schema does not accept: a value its type rejects, or a key it does not have. They stay in the
/// state files (the schema may change back) and are ignored when resolving; each is logged when the module is
/// loaded, and when a reloaded schema changes the module.
extension ModuleSchema {
    /// A stored value the schema does not accept.
    public struct BrokenValue: Sendable, Hashable {
        /// `local`, `recommended` or `mandatory`.
        public var layer: LayerName
        /// `SECTION.ITEM`.
        public var path: String
        public var value: SettingValue
        /// Why the schema does not accept it, e.g. "must be within 1..1024" or "no such key in the schema".
        public var reason: String
    }

    /// Every stored value of `state` the schema does not accept: local values first, then the remote layers, each
    /// by key.
    public func brokenValues(in state: ModuleState) -> [BrokenValue] {
        let layers: [(LayerName, [String: SettingValue])] = [
            (.local, state.local), (.recommended, state.recommended), (.mandatory, state.mandatory),
        ]
        var broken: [BrokenValue] = []
        for (layer, values) in layers {
            for path in values.keys.sorted() {
                let value = values[path]!
                guard let item = self.item(at: path) else {
                    broken.append(
                        BrokenValue(layer: layer, path: path, value: value, reason: "no such key in the schema")
                    )
                    continue
                }
                do {
                    _ = try item.type.checked(value)
                } catch {
                    broken.append(BrokenValue(layer: layer, path: path, value: value, reason: error.reason))
                }
            }
        }
        return broken
    }

    /// The warning for `broken`, a value of this module: "Stored value of network.proxy.port in the local layer
    /// breaks the schema and is ignored: 9000: must be within 1..1024".
    public func message(for broken: BrokenValue) -> String {
        """
        Stored value of \(self.name).\(broken.path) in the \(broken.layer.rawValue) layer breaks the schema and is \
        ignored: \(broken.value.logText()): \(broken.reason)
        """
    }

    /// The log metadata of `broken`: module, key, layer, value and reason.
    public func metadata(for broken: BrokenValue) -> [String: String] {
        [
            "module": self.name, "key": "\(self.name).\(broken.path)", "layer": broken.layer.rawValue,
            "value": broken.value.logText(), "reason": broken.reason,
        ]
    }
}
