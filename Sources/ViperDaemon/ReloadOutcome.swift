import Logging

/// What a reload (SIGHUP) did: whether the configuration and the schemas were read again. Its ``summary(status:)`` is
/// the reload's last log line, which never says "reloaded" of what was not.
struct ReloadOutcome: Sendable, Equatable {
    /// The configuration was read without an error and the keys a reload applies were applied.
    var configurationReloaded: Bool
    /// The modules directory was read (a schema that broke is logged and keeps its previous version).
    var schemasReloaded: Bool
    /// Schema files rejected when the directory was read (each logged; its module is served as before).
    var rejectedSchemaFiles = 0

    /// "reloaded the configuration and the schemas: STATUS", or what was and was not reloaded, the errors being
    /// logged above it.
    func summary(status: String) -> String {
        let done =
            switch (self.configurationReloaded, self.schemasReloaded) {
            case (true, true): "reloaded the configuration and the schemas"
            case (false, true): "reloaded the schemas; the configuration was not (see above)"
            case (true, false): "reloaded the configuration; the schemas were not (see above)"
            case (false, false): "reloaded nothing: neither the configuration nor the schemas (see above)"
            }
        let rejected =
            !self.schemasReloaded || self.rejectedSchemaFiles == 0
            ? ""
            : self.rejectedSchemaFiles == 1
                ? ", but 1 schema file was rejected (see above)"
                : ", but \(self.rejectedSchemaFiles) schema files were rejected (see above)"
        return "\(done)\(rejected): \(status)"
    }

    /// Notice when everything was reloaded, else warning: something the administrator asked for did not happen.
    var level: Logger.Level {
        self.configurationReloaded && self.schemasReloaded && self.rejectedSchemaFiles == 0 ? .notice : .warning
    }
}
