extension DaemonConfiguration {
    /// The configuration keys a reload applies: the schemas' directory and the value size limit they are loaded
    /// with. Every other key is read once, at start.
    public static let keysAppliedOnReload = ["modules-dir", "max-value-size"]

    /// The keys of the configuration file whose value in `next` differs from this one's and that take effect only
    /// when the daemon restarts (all but ``keysAppliedOnReload``), in the order of the file's documentation.
    public func keysNeedingRestart(toBecome next: DaemonConfiguration) -> [String] {
        let differences: [(key: String, differs: Bool)] = [
            ("state-dir", self.stateDirectory != next.stateDirectory),
            ("socket", self.socketPath != next.socketPath),
            ("log-level", self.logLevel != next.logLevel),
            ("max-message-size", self.maximumMessageSize != next.maximumMessageSize),
            ("max-connections-per-uid", self.maximumConnectionsPerUID != next.maximumConnectionsPerUID),
            ("max-connections", self.maximumConnections != next.maximumConnections),
            ("idle-timeout", self.idleTimeout != next.idleTimeout),
            ("remote", self.remote != next.remote),
            ("remote-poll-interval", self.remotePollInterval != next.remotePollInterval),
            ("remote-timeout", self.remoteTimeout != next.remoteTimeout),
            ("remote-token-file", self.remoteTokenFile != next.remoteTokenFile),
            ("remote-ca-file", self.remoteCAFile != next.remoteCAFile),
            ("sync-min-interval", self.syncMinimumInterval != next.syncMinimumInterval),
        ]
        return differences.filter(\.differs).map(\.key)
    }
}
