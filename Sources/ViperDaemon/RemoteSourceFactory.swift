import AsyncHTTPClient
import Logging
import ViperSettings
import ViperSync

/// Builds the remote source the configuration names: HTTP(S) for `http://` and `https://`, etcd for `etcd://`.
enum RemoteSourceFactory {
    /// The source and what to call once it stopped, or `nil` when remote sync is off. Throws a
    /// ``ConfigurationError`` for a URL it cannot use.
    static func make(
        configuration: DaemonConfiguration,
        logger: Logger
    ) throws -> (source: any RemoteSource, shutdown: @Sendable () async -> Void)? {
        guard let remote = configuration.remote else { return nil }
        let lowered = remote.lowercased()
        if lowered.hasPrefix("http://") || lowered.hasPrefix("https://") {
            let http = HTTPSourceConfiguration(
                url: remote,
                pollInterval: configuration.remotePollInterval,
                requestTimeout: configuration.remoteTimeout,
                bearerTokenFile: configuration.remoteTokenFile,
                caFile: configuration.remoteCAFile
            )
            do {
                try http.validate()
            } catch {
                throw ConfigurationError("remote: \(error)")
            }
            // A client of our own, so the connect and read timeouts are the configured ones.
            let client = HTTPRemoteSource.makeHTTPClient(configuration: http)
            return (
                HTTPRemoteSource(configuration: http, httpClient: client, logger: logger),
                { try? await client.shutdown() }
            )
        }
        if lowered.hasPrefix("etcd://") {
            do {
                let etcd = try EtcdSourceConfiguration.parse(url: remote)
                return (EtcdRemoteSource(configuration: etcd, logger: logger), {})
            } catch {
                throw ConfigurationError("remote: \(error)")
            }
        }
        throw ConfigurationError(
            "remote '\(remote)' is not an https://, http:// or etcd:// URL (e.g. etcd://127.0.0.1:2379/viper)"
        )
    }
}
