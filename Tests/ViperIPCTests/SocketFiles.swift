import Glibc
import ViperTestSupport

/// The file type and permission bits at `path`, or `nil` if nothing is there.
func fileMode(_ path: String) -> mode_t? {
    var status = stat()
    guard lstat(path, &status) == 0 else { return nil }
    return status.st_mode
}

/// Whether a Unix socket file exists at `path`.
func isSocket(_ path: String) -> Bool {
    guard let mode = fileMode(path) else { return false }
    return mode & S_IFMT == S_IFSOCK
}

/// A new Unix stream socket (close-on-exec) and the result of `body` with it and `path`'s address; the socket is
/// closed and `operation`'s error thrown when `body` returns non-zero.
func makeUnixSocket(
    path: String,
    _ operation: String,
    _ body: (Int32, UnsafePointer<sockaddr>, socklen_t) -> Int32
) throws -> Int32 {
    let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard descriptor >= 0 else { throw SystemCallError(operation: "socket", code: errno) }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { bytes in bytes.copyBytes(from: path.utf8) }
    let result = withUnsafePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
            body(descriptor, socketAddress, socklen_t(MemoryLayout<sockaddr_un>.size))
        }
    }
    guard result == 0 else {
        let error = SystemCallError(operation: operation, code: errno)
        close(descriptor)
        throw error
    }
    return descriptor
}

/// Creates a Unix stream socket bound to `path`; listening if `listen` is true. Returns its descriptor.
func makeBoundSocket(path: String, listen shouldListen: Bool) throws -> Int32 {
    let descriptor = try makeUnixSocket(path: path, "bind") { bind($0, $1, $2) }
    if shouldListen {
        guard listen(descriptor, 16) == 0 else {
            let error = SystemCallError(operation: "listen", code: errno)
            close(descriptor)
            throw error
        }
    }
    return descriptor
}
