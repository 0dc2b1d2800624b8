#if canImport(Glibc)
import Glibc
#endif

/// A system call a test helper made that failed.
struct SystemCallError: Error, CustomStringConvertible {
    /// The call, for example `bind`.
    let operation: String
    /// Its `errno`.
    let code: Int32

    var description: String { "\(self.operation): \(String(cString: strerror(self.code)))" }
}
