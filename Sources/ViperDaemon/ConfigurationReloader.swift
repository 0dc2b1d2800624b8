import Logging
import Synchronization

/// Reads the configuration again on reload (SIGHUP) and keeps the one in force: the configuration the daemon started
/// with, but for the keys a reload applies (``DaemonConfiguration/keysAppliedOnReload``), which come from the last
/// configuration that was read without an error.
///
/// A configuration with an error is logged ("configuration not reloaded, keeping the current one: …") and changes
/// nothing: the daemon goes on with the one in force, which may be that of an earlier reload.
final class ConfigurationReloader: Sendable {
    private let started: DaemonConfiguration
    private let read: @Sendable () throws -> DaemonConfiguration
    private let logger: Logger
    private let inForce: Mutex<DaemonConfiguration>

    /// Creates a reloader.
    ///
    /// - Parameters:
    ///   - started: The configuration the daemon started with.
    ///   - read: Reads the configuration again (the flags, the file and the environment).
    ///   - logger: Where the keys that need a restart and a configuration with an error are logged.
    init(
        started: DaemonConfiguration,
        read: @escaping @Sendable () throws -> DaemonConfiguration,
        logger: Logger
    ) {
        self.started = started
        self.read = read
        self.logger = logger
        self.inForce = Mutex(started)
    }

    /// The configuration in force.
    var current: DaemonConfiguration { self.inForce.withLock { $0 } }

    /// Reads the configuration again and applies the keys a reload applies; returns the error that kept it from
    /// doing so (`nil` when it did). Warns about the changed keys that take effect only at a restart, on every reload
    /// until then.
    @discardableResult
    func reload() -> (any Error)? {
        let next: DaemonConfiguration
        do {
            next = try self.read()
        } catch {
            self.logger.error("configuration not reloaded, keeping the current one: \(error)")
            return error
        }
        let pending = self.started.keysNeedingRestart(toBecome: next)
        if !pending.isEmpty {
            // Said on every reload until the restart: the running daemon still uses the old values.
            self.logger.warning(
                """
                \(pending.joined(separator: ", ")) changed in the configuration; the running daemon keeps the \
                values it started with until it restarts (a reload applies \
                \(DaemonConfiguration.keysAppliedOnReload.joined(separator: ", ")) and the schemas)
                """,
                metadata: ["keys": "\(pending.joined(separator: ","))"]
            )
        }
        self.inForce.withLock {
            $0.modulesDirectory = next.modulesDirectory
            $0.maximumValueSize = next.maximumValueSize
        }
        return nil
    }
}
