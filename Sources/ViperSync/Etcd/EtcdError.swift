/// A failure talking to etcd, with a message a user can act on (it goes to the logs and `settingsctl status`).
public struct EtcdError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong.
    public var message: String

    /// Creates the error.
    public init(_ message: String) {
        self.message = message
    }

    /// The message.
    public var description: String { self.message }
}
