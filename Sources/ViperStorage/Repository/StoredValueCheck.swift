import Logging
import ViperSettings

/// Logs, when a module is loaded, each stored value its schema does not accept (module, key, layer, value, reason
/// and the file it is in). Such values are kept in the files (a schema may change back) and ignored when resolving.
struct StoredValueCheck {
    let schema: ModuleSchema
    let directory: StateDirectory
    let logger: Logger

    /// Logs every stored value of `state` that the schema rejects or does not know, one warning each.
    func check(_ state: ModuleState) {
        let name = self.schema.name
        for broken in self.schema.brokenValues(in: state) {
            let file =
                broken.layer == .local
                ? "\(self.directory.snapshotPath(name)), \(self.directory.journalPath(name))"
                : self.directory.remotePath(name)
            var metadata = self.schema.metadata(for: broken).mapValues { Logger.MetadataValue.string($0) }
            metadata["file"] = "\(file)"
            self.logger.warning("\(self.schema.message(for: broken))", metadata: metadata)
        }
    }
}
