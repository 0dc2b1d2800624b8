#if canImport(Glibc)
import Glibc
import ViperTestSupport
#endif

/// Unix stream sockets for the socket activation tests; the caller closes the descriptors.
enum TestSockets {
    /// A socket bound at `path` and listening.
    static func listening(at path: String) throws -> Int32 {
        let descriptor = try Self.stream()
        guard Self.withAddress(path, { bind(descriptor, $0, $1) }) == 0, listen(descriptor, 8) == 0 else {
            let code = errno
            close(descriptor)
            throw SystemCallError(operation: "bind/listen", code: code)
        }
        return descriptor
    }

    /// A socket connected to the one listening at `path`.
    static func connected(to path: String) throws -> Int32 {
        let descriptor = try Self.stream()
        guard Self.withAddress(path, { connect(descriptor, $0, $1) }) == 0 else {
            let code = errno
            close(descriptor)
            throw SystemCallError(operation: "connect", code: code)
        }
        return descriptor
    }

    /// Two connected sockets.
    static func pair() throws -> (Int32, Int32) {
        var descriptors: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &descriptors) == 0
        else {
            throw SystemCallError(operation: "socketpair", code: errno)
        }
        return (descriptors[0], descriptors[1])
    }

    private static func stream() throws -> Int32 {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else {
            throw SystemCallError(operation: "socket", code: errno)
        }
        return descriptor
    }

    private static func withAddress(
        _ path: String,
        _ body: (UnsafePointer<sockaddr>, socklen_t) -> Int32
    ) -> Int32 {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        precondition(bytes.count < MemoryLayout.size(ofValue: address.sun_path), "socket path too long")
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                body($0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
    }
}
