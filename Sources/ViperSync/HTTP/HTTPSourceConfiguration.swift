/// How the HTTP(S) remote source fetches its document.
public struct HTTPSourceConfiguration: Sendable, Hashable {
    /// The document's URL, `http://…` or `https://…`.
    public var url: String
    /// The delay between two polls after a success; each delay is jittered by ±10 %.
    public var pollInterval: Duration
    /// The longest a whole exchange may take, from connecting to the last byte of the body; a server that sends its
    /// body slowly, byte by byte, fails the attempt when it runs out.
    public var requestTimeout: Duration
    /// The longest wait for a TCP (and TLS) connection, when the client was made by
    /// ``HTTPRemoteSource/makeHTTPClient(configuration:)``.
    public var connectTimeout: Duration
    /// The longest wait for the next bytes of the response, when the client was made by
    /// ``HTTPRemoteSource/makeHTTPClient(configuration:)``. With any client, a whole exchange must finish within
    /// ``requestTimeout``.
    public var readTimeout: Duration
    /// The largest response body accepted, in bytes; a larger body fails the attempt.
    public var maximumBodySize: Int
    /// A file holding a bearer token (e.g. `$CREDENTIALS_DIRECTORY/token` from systemd `LoadCredential=`), read at
    /// every attempt, trailing whitespace trimmed.
    public var bearerTokenFile: String?
    /// A PEM file of the certificate authorities trusted for `https://` (instead of the system trust store).
    public var caFile: String?
    /// The delays between retries after a failure.
    public var backoff: Backoff

    /// Creates a configuration; only `url` is required.
    public init(
        url: String,
        pollInterval: Duration = .seconds(60),
        requestTimeout: Duration = .seconds(30),
        connectTimeout: Duration = .seconds(5),
        readTimeout: Duration = .seconds(10),
        maximumBodySize: Int = 4 << 20,
        bearerTokenFile: String? = nil,
        caFile: String? = nil,
        backoff: Backoff = Backoff()
    ) {
        self.url = url
        self.pollInterval = pollInterval
        self.requestTimeout = requestTimeout
        self.connectTimeout = connectTimeout
        self.readTimeout = readTimeout
        self.maximumBodySize = maximumBodySize
        self.bearerTokenFile = bearerTokenFile
        self.caFile = caFile
        self.backoff = backoff
    }

    /// Checks what can be checked without the network: the URL scheme and host, and positive limits.
    public func validate() throws(RemoteSyncError) {
        // As messages name it: a user and password in it are not repeated.
        let shown = URLAuthority.hidingUserInfo(self.url)
        let lowered = self.url.lowercased()
        guard lowered.hasPrefix("http://") || lowered.hasPrefix("https://") else {
            throw RemoteSyncError.configuration("remote URL \(shown) must start with http:// or https://")
        }
        if let bad = self.url.unicodeScalars.first(where: { $0.value <= 0x20 || $0.value >= 0x7F }) {
            throw RemoteSyncError.configuration(
                "remote URL \(shown) contains \(bad.value == 0x20 ? "a space" : "U+\(String(bad.value, radix: 16, uppercase: true))"); "
                    + "percent-encode it (a space is %20)"
            )
        }
        let afterScheme = self.url.split(separator: "/", maxSplits: 3, omittingEmptySubsequences: false)
        guard afterScheme.count >= 3, !afterScheme[2].isEmpty else {
            throw RemoteSyncError.configuration("remote URL \(shown) has no host")
        }
        // The authority ends where the path, a query or a fragment starts.
        let authority = afterScheme[2].prefix { $0 != "?" && $0 != "#" }
        do {
            _ = try URLAuthority(authority)
        } catch {
            throw RemoteSyncError.configuration("remote URL \(shown): \(error.reason)")
        }
        guard self.pollInterval > .zero, self.requestTimeout > .zero, self.connectTimeout > .zero,
            self.readTimeout > .zero
        else {
            throw RemoteSyncError.configuration("poll interval and timeouts must be positive")
        }
        guard self.maximumBodySize > 0 else {
            throw RemoteSyncError.configuration("maximum body size must be positive")
        }
    }
}
