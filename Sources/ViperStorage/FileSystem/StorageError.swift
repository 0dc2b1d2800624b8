import Glibc
import ViperPOSIX

/// A storage operation failed: a message naming the file and, for a system call, the `errno` text.
///
/// Thrown by ``JSONFileRepository`` when a write could not be made durable, or when a module is refused after such
/// a failure, and by ``ModuleCatalogLoader`` when the modules directory cannot be read.
public struct StorageError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What failed, for people: `fdatasync /var/lib/viper-settings/network.journal: Input/output error`.
    public var message: String
    /// The `errno` of the failed system call, when there is one.
    public var errno: Int32?

    /// Creates an error with a message and, optionally, the `errno` that caused it.
    public init(_ message: String, errno: Int32? = nil) {
        self.message = message
        self.errno = errno
    }

    public var description: String { self.message }

    /// The failure of the system call `operation` on `path`, with the text of `code`.
    /// A file system mounted read-only gets the advice the refusals of such a module give.
    static func system(_ operation: String, _ path: String, errno code: Int32) -> StorageError {
        let advice = code == EROFS ? ": its file system is mounted read-only (remount it read-write)" : ""
        return StorageError("\(operation) \(path): \(SystemErrorText.describe(code))\(advice)", errno: code)
    }
}
