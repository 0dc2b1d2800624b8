/// Why remote sync cannot start or why one attempt failed, with a message a user can act on (it goes to the logs
/// and to `settingsctl status`).
public enum RemoteSyncError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The source cannot be set up: a URL, an option or a credential file that cannot be used.
    case configuration(String)
    /// An attempt failed: the server could not be reached, answered with an error or too slowly, or sent a document
    /// or payload that does not parse.
    case attempt(String)
    /// An attempt failed with an answer that asks to wait before the next one (`Retry-After` on an HTTP 429 or
    /// 503): the source waits that long, within bounds, rather than its backoff when that is shorter.
    case throttled(String, retryAfter: Duration)

    /// An `etcd://` URL that cannot be used: `invalid etcd URL 'etcd://h1/': a key prefix is missing (…)`.
    static func invalidEtcdURL(_ url: String, _ reason: String) -> RemoteSyncError {
        .configuration("invalid etcd URL '\(URLAuthority.hidingUserInfo(url))': \(reason)")
    }

    /// What went wrong.
    public var message: String {
        switch self {
        case .configuration(let message), .attempt(let message), .throttled(let message, _): message
        }
    }

    public var description: String { self.message }
}
