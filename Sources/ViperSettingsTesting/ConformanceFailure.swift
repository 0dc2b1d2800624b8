/// A ``RepositoryConformance`` check failed: the message says what was expected and what was found.
public struct ConformanceFailure: Error, Sendable, CustomStringConvertible {
    /// What was expected and what was found.
    public var message: String

    /// Creates a failure with a message.
    public init(_ message: String) {
        self.message = message
    }

    public var description: String { self.message }
}
