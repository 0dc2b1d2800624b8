import AsyncHTTPClient
import Logging
import SettingsAPI
import ViperSettings
import ViperSync

/// Builds the remote source the configuration names: HTTP(S) for `http://` and `https://`, etcd for `etcd://`.
enum RemoteSourceFactory {
    /// Checks what can be checked of a `remote` value without the network: a scheme the daemon knows, a host, and
    /// for etcd a key prefix. Called when the configuration is read, so that a URL it cannot use is a configuration
    /// error (exit status 2 at start) naming where the value came from.
    ///
    /// - Throws: ``RemoteSyncError`` saying what is wrong with `remote`.
    static func check(_ remote: String) throws(RemoteSyncError) {
        // Far above any real URL: a longer one is a mistake (a file pasted in), not to be logged whole at each sync.
        guard remote.utf8.count <= Self.maximumURLLength else {
            throw RemoteSyncError.configuration(
                "the URL is \(remote.utf8.count) bytes long, more than \(Self.maximumURLLength) (it begins "
                    + "\(QuotedText.quote(remote, limit: 64)))"
            )
        }
        let lowered = remote.lowercased()
        if lowered.hasPrefix("http://") || lowered.hasPrefix("https://") {
            try HTTPSourceConfiguration(url: remote).validate()
        } else if lowered.hasPrefix("etcd://") {
            _ = try EtcdSourceConfiguration.parse(url: remote)
        } else {
            throw RemoteSyncError.configuration(
                "'\(remote)' is not an https://, http:// or etcd:// URL (e.g. https://config.example.org/fleet.json "
                    + "or etcd://127.0.0.1:2379/viper), nor off"
            )
        }
    }

    /// The longest remote URL accepted, in bytes.
    static let maximumURLLength = 8192

    /// The source and what to call once it stopped, or `nil` when remote sync is off. Throws a
    /// ``ConfigurationError`` for a URL it cannot use (which ``check(_:)`` has refused already when the
    /// configuration came from ``DaemonFlags``).
    static func make(
        configuration: DaemonConfiguration,
        logger: Logger
    ) throws -> (source: any RemoteSource, shutdown: @Sendable () async -> Void)? {
        guard let remote = configuration.remote else { return nil }
        do {
            try Self.check(remote)
        } catch {
            throw ConfigurationError("remote: \(error)")
        }
        if remote.lowercased().hasPrefix("etcd://") {
            let etcd = try EtcdSourceConfiguration.parse(url: remote)
            return (EtcdRemoteSource(configuration: etcd, logger: logger), {})
        }
        let http = HTTPSourceConfiguration(
            url: remote,
            pollInterval: configuration.remotePollInterval,
            requestTimeout: configuration.remoteTimeout,
            bearerTokenFile: configuration.remoteTokenFile,
            caFile: configuration.remoteCAFile
        )
        // A client of our own, so the connect and read timeouts are the configured ones.
        let client = HTTPRemoteSource.makeHTTPClient(configuration: http)
        return (
            HTTPRemoteSource(configuration: http, httpClient: client, logger: logger),
            { try? await client.shutdown() }
        )
    }
}
