/// An `etcd://` URL that cannot be used, with the reason.
public struct EtcdConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The URL as given.
    public var url: String
    /// What is wrong with it.
    public var reason: String

    /// Creates the error.
    public init(url: String, reason: String) {
        self.url = url
        self.reason = reason
    }

    /// `invalid etcd URL 'etcd://h1/': a key prefix is missing (…)`.
    public var description: String { "invalid etcd URL '\(self.url)': \(self.reason)" }
}
