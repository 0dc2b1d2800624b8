import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A fresh directory under /tmp with a short path (socket paths must fit in 108 bytes), removed after use.
enum TemporaryDirectory {
    /// Runs `body` with the path of a new, empty directory, then removes the directory and its contents.
    static func with<T>(_ body: (String) async throws -> T) async throws -> T {
        var template = Array("/tmp/viper-systemd-XXXXXX".utf8CString)
        guard let created = mkdtemp(&template) else {
            throw SystemCallError(operation: "mkdtemp", code: errno)
        }
        let path = String(cString: created)
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try await body(path)
    }
}
