import Logging

/// What a reload (SIGHUP) did: whether the configuration and the schemas were read again. Its ``summary(status:)`` is
/// the reload's last log line, which never says "reloaded" of what was not.
struct ReloadOutcome: Sendable, Equatable {
    /// The configuration was read without an error and the keys a reload applies were applied.
    var configurationReloaded: Bool
    /// The modules directory was read (a schema that broke is logged and keeps its previous version).
    var schemasReloaded: Bool

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
        return "\(done): \(status)"
    }

    /// Notice when everything was reloaded, else warning: something the administrator asked for did not happen.
    var level: Logger.Level {
        self.configurationReloaded && self.schemasReloaded ? .notice : .warning
    }
}
