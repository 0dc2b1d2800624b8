/// Where an etcd source reads: its endpoints, the key prefix, and how it retries.
///
/// Built from a URL such as `etcd://h1:2379,h2:2379,h3:2379/viper` with ``parse(url:)``.
public struct EtcdSourceConfiguration: Sendable {
    /// The cluster members to talk to, tried round-robin on failure: host (name, IPv4, or IPv6 without brackets)
    /// and client port.
    public var endpoints: [(host: String, port: Int)]
    /// The key prefix without a leading or trailing slash, e.g. `viper` or `fleet/viper`.
    public var prefix: String
    /// The delays between failed attempts.
    public var backoff: Backoff
    /// The bound on a range read, and on connecting a watch until its response head arrives.
    public var requestTimeout: Duration
    /// How often the member a watch runs on is probed with a linearizable read. A watch stream alone cannot tell
    /// a quiet cluster from a member that hangs or lost its quorum; a probe unanswered within ``requestTimeout``
    /// ends the watch and the source fails over to the next endpoint.
    public var probeInterval: Duration

    /// The port used when a URL names a host without one.
    public static let defaultPort = 2379

    /// Creates a configuration from its parts; `endpoints` must not be empty.
    public init(
        endpoints: [(host: String, port: Int)],
        prefix: String,
        backoff: Backoff = Backoff(),
        requestTimeout: Duration = .seconds(10),
        probeInterval: Duration = .seconds(10)
    ) {
        precondition(!endpoints.isEmpty, "an etcd source needs at least one endpoint")
        self.endpoints = endpoints
        self.prefix = prefix
        self.backoff = backoff
        self.requestTimeout = requestTimeout
        self.probeInterval = probeInterval
    }

    /// The URL form, for status and logs: `etcd://h1:2379,h2:2379/viper`.
    public var description: String {
        let hosts = self.endpoints.map { endpoint in
            endpoint.host.contains(":") ? "[\(endpoint.host)]:\(endpoint.port)" : "\(endpoint.host):\(endpoint.port)"
        }
        return "etcd://\(hosts.joined(separator: ","))/\(self.prefix)"
    }

    /// Parses `etcd://HOST[:PORT][,HOST[:PORT]…]/PREFIX`; IPv6 hosts go in brackets (`[::1]:2379`).
    ///
    /// - Throws: ``RemoteSyncError`` naming what is wrong, e.g. a missing prefix or a bad port.
    public static func parse(
        url: String,
        backoff: Backoff = Backoff(),
        requestTimeout: Duration = .seconds(10),
        probeInterval: Duration = .seconds(10)
    ) throws(RemoteSyncError) -> EtcdSourceConfiguration {
        let scheme = "etcd://"
        guard url.hasPrefix(scheme) else {
            throw RemoteSyncError.invalidEtcdURL(url, "the scheme must be etcd://")
        }
        let rest = url.dropFirst(scheme.count)
        guard let slash = rest.firstIndex(of: "/") else {
            throw RemoteSyncError.invalidEtcdURL(url, "a key prefix is missing (etcd://host:2379/PREFIX)")
        }
        let authority = rest[..<slash]
        var prefix = Substring(rest[rest.index(after: slash)...])
        while prefix.hasSuffix("/") { prefix = prefix.dropLast() }
        guard !prefix.isEmpty else {
            throw RemoteSyncError.invalidEtcdURL(url, "a key prefix is missing (etcd://host:2379/PREFIX)")
        }
        guard !prefix.contains("?"), !prefix.contains("#") else {
            throw RemoteSyncError.invalidEtcdURL(url, "queries and fragments are not supported")
        }
        guard !authority.isEmpty else {
            throw RemoteSyncError.invalidEtcdURL(url, "no endpoint (etcd://host:2379/PREFIX)")
        }
        var endpoints: [(host: String, port: Int)] = []
        for part in authority.split(separator: ",", omittingEmptySubsequences: false) {
            endpoints.append(try Self.parseEndpoint(part, url: url))
        }
        return EtcdSourceConfiguration(
            endpoints: endpoints,
            prefix: String(prefix),
            backoff: backoff,
            requestTimeout: requestTimeout,
            probeInterval: probeInterval
        )
    }

    /// Parses one `host[:port]` or `[v6]:port`.
    private static func parseEndpoint(
        _ text: Substring,
        url: String
    ) throws(RemoteSyncError) -> (host: String, port: Int) {
        guard !text.isEmpty else {
            throw RemoteSyncError.invalidEtcdURL(url, "an empty endpoint in the host list")
        }
        do {
            let authority = try URLAuthority(text)
            return (authority.host, authority.port ?? Self.defaultPort)
        } catch {
            throw RemoteSyncError.invalidEtcdURL(url, error.reason)
        }
    }
}
