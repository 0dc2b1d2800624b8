import Logging
import ViperSettings

/// Checks a loaded module's stored values against its schema and logs each that breaks it (module, key, layer,
/// value, reason). Such values are kept in the files (a schema may change back) and ignored when resolving.
struct StoredValueCheck {
    let schema: ModuleSchema
    let directory: StateDirectory
    let logger: Logger

    /// Logs every stored value of `state` that the schema rejects or does not know, one warning each.
    func check(_ state: ModuleState) {
        let name = self.schema.name
        let layers: [(name: String, values: [String: SettingValue], file: String)] = [
            ("local", state.local, "\(self.directory.snapshotPath(name)), \(self.directory.journalPath(name))"),
            ("recommended", state.recommended, self.directory.remotePath(name)),
            ("mandatory", state.mandatory, self.directory.remotePath(name)),
        ]
        for layer in layers {
            for key in layer.values.keys.sorted() {
                let value = layer.values[key]!
                let reason: String
                if let item = self.schema.item(at: key) {
                    do {
                        _ = try item.type.checked(value)
                        continue
                    } catch {
                        reason = error.reason
                    }
                } else {
                    reason = "no such key in the schema"
                }
                let text = value.logText()
                self.logger.warning(
                    """
                    Stored value of \(self.schema.name).\(key) in the \(layer.name) layer breaks the schema and is \
                    ignored: \(text): \(reason)
                    """,
                    metadata: [
                        "module": "\(self.schema.name)", "key": "\(self.schema.name).\(key)", "layer": "\(layer.name)",
                        "value": "\(text)", "reason": "\(reason)", "file": "\(layer.file)",
                    ]
                )
            }
        }
    }
}
