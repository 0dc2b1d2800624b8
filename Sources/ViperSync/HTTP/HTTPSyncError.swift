/// Why an HTTP sync attempt or configuration failed, with a message a user can act on.
public struct HTTPSyncError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The message, e.g. `HTTP 500 from https://config.example.org/fleet.json`.
    public var message: String

    /// Creates an error with `message`.
    public init(_ message: String) {
        self.message = message
    }

    public var description: String { self.message }
}
