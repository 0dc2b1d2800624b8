import Glibc

/// A failed system call in a test helper: the call and its `errno`.
public struct SystemCallError: Error, CustomStringConvertible {
    /// The call, for example `bind`.
    public let operation: String
    /// Its `errno`.
    public let code: Int32

    public init(operation: String, code: Int32) {
        self.operation = operation
        self.code = code
    }

    public var description: String { "\(self.operation): \(String(cString: strerror(self.code)))" }
}
