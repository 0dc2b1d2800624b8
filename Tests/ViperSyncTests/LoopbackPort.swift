import Foundation
import Glibc

/// A loopback TCP port held, for the length of a test, by a socket bound to it.
///
/// Listening, it is a server that never accepts: the kernel completes connections into its backlog, requests are
/// sent, and no byte ever comes back (a server that accepts and never answers). Not listening, it refuses
/// connections, and no parallel test can start listening on it meanwhile. ``free()`` gives a port for a server to
/// bind.
final class LoopbackPort {
    /// The port on 127.0.0.1.
    let port: Int
    private let descriptor: Int32

    /// Binds a socket to a free port on 127.0.0.1, and listens on it when `listening`.
    init(listening: Bool) throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ready = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(descriptor, pointer, length) == 0 && (!listening || listen(descriptor, 16) == 0)
                    && getsockname(descriptor, pointer, &length) == 0
            }
        }
        guard ready else {
            let error = POSIXError(.init(rawValue: errno) ?? .EIO)
            close(descriptor)
            throw error
        }
        self.descriptor = descriptor
        self.port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit {
        close(self.descriptor)
    }

    /// A listening socket on a free loopback port, for a server of the test's own to accept on; the caller closes
    /// it.
    static func listeningDescriptor() throws -> (descriptor: Int32, port: Int) {
        let held = try LoopbackPort(listening: true)
        let descriptor = fcntl(held.descriptor, F_DUPFD_CLOEXEC, 0)
        guard descriptor >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        return (descriptor, held.port)
    }

    /// A loopback port that nothing listens on right now (bound, then released at once), for a server to bind.
    static func free() throws -> Int {
        try LoopbackPort(listening: false).port
    }
}
