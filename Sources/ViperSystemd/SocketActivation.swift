import CSystemd
import Glibc

/// The sockets systemd passed to the process by socket activation (`sd_listen_fds(3)`).
///
/// ```swift
/// if let socket = SocketActivation.listeningDescriptors().first(where: { SocketActivation.isListening($0.fd) }) {
///     // accept on socket.fd instead of binding the configured path
/// }
/// ```
public enum SocketActivation {
    /// The descriptors passed with `LISTEN_FDS`, each with its `FileDescriptorName=` from `LISTEN_FDNAMES`.
    ///
    /// Empty when the process was not socket-activated (no `LISTEN_FDS`, or `LISTEN_PID` names another
    /// process) or the variables are malformed. Names default to `"unknown"`, as systemd's do. The
    /// descriptors start at 3 and are marked close-on-exec. `LISTEN_PID`, `LISTEN_FDS` and `LISTEN_FDNAMES` are
    /// removed from the environment so that child processes do not take the sockets for theirs; a second call
    /// therefore returns an empty array: call this once, at start-up.
    public static func listeningDescriptors() -> [(fd: Int32, name: String)] {
        var names: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
        let count = sd_listen_fds_with_names(1, &names)
        defer {
            // A NULL-terminated array of malloc'ed strings.
            if let names {
                var index = 0
                while let name = names[index] {
                    free(name)
                    index += 1
                }
                free(names)
            }
        }
        guard count > 0 else {
            return []
        }
        return (0..<count).map { index in
            let name = names?[Int(index)].map { String(cString: $0) } ?? "unknown"
            return (fd: SD_LISTEN_FDS_START + index, name: name)
        }
    }

    /// Accepts and closes every connection waiting on the listening sockets passed by socket activation, for a
    /// daemon that exits without serving (a configuration error): while a connection waits, systemd starts the
    /// service again at once, until its start limit fails the socket unit, which then stays failed after the error is
    /// mended. The clients see the connection closed without an answer. Consumes the descriptors as
    /// ``listeningDescriptors()`` does.
    ///
    /// - Returns: How many connections were closed.
    @discardableResult
    public static func closePendingConnections() -> Int {
        var closed = 0
        for (fd, _) in self.listeningDescriptors() where self.isListeningUnixStream(fd) {
            while true {
                // Only what is waiting now: a blocking accept would wait for the next client.
                var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                guard poll(&ready, 1, 0) == 1, ready.revents & Int16(POLLIN) != 0 else { break }
                let connection = accept(fd, nil, nil)
                if connection < 0 {
                    if errno == EINTR || errno == ECONNABORTED { continue }
                    break
                }
                close(connection)
                closed += 1
            }
        }
        return closed
    }

    /// Whether `fd` is a connected Unix stream socket (not listening, with a peer): what `exec:`-style activation
    /// and a socket unit with `Accept=yes` pass, one per connection.
    public static func isConnectedStream(_ fd: Int32) -> Bool {
        self.isUnixStream(fd) && !self.isListening(fd) && self.address(of: fd, getpeername) != nil
    }

    /// Whether `fd` is a Unix stream socket in the listening state (`SO_ACCEPTCONN`).
    public static func isListeningUnixStream(_ fd: Int32) -> Bool {
        self.isUnixStream(fd) && self.isListening(fd)
    }

    /// Whether `fd` is a socket in the listening state (`SO_ACCEPTCONN`), not a connected socket or a non-socket.
    public static func isListening(_ fd: Int32) -> Bool {
        var accepting: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &accepting, &length) == 0 else {
            return false
        }
        return accepting != 0
    }

    /// Whether `fd` is a stream socket of the Unix family: the only kind whose callers the daemon can tell apart
    /// (`SO_PEERCRED`).
    static func isUnixStream(_ fd: Int32) -> Bool {
        self.socketType(fd) == Int32(SOCK_STREAM.rawValue) && self.family(fd) == sa_family_t(AF_UNIX)
    }

    /// What `fd` is, in words, for a message about a descriptor that cannot be served: `a datagram socket`, `a TCP/IP
    /// socket`, `a Unix stream socket that is neither listening nor connected`, `a pipe`, `a regular file`…
    public static func describe(_ fd: Int32) -> String {
        guard let type = self.socketType(fd) else {
            var info = stat()
            guard fstat(fd, &info) == 0 else { return "not an open descriptor" }
            switch info.st_mode & S_IFMT {
            case S_IFIFO: return "a pipe"
            case S_IFREG: return "a regular file"
            case S_IFCHR: return "a character device"
            case S_IFDIR: return "a directory"
            default: return "not a socket"
            }
        }
        let family = self.family(fd)
        if family == sa_family_t(AF_INET) || family == sa_family_t(AF_INET6) { return "a TCP/IP socket" }
        if family != sa_family_t(AF_UNIX) { return "a socket of another family than Unix" }
        switch type {
        case Int32(SOCK_DGRAM.rawValue): return "a Unix datagram socket"
        case Int32(SOCK_SEQPACKET.rawValue): return "a Unix seqpacket socket"
        case Int32(SOCK_STREAM.rawValue): return "a Unix stream socket that is neither listening nor connected"
        default: return "a Unix socket of another type"
        }
    }

    private static func socketType(_ fd: Int32) -> Int32? {
        var type: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        return getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &length) == 0 ? type : nil
    }

    private static func family(_ fd: Int32) -> sa_family_t? {
        self.address(of: fd, getsockname)?.ss_family
    }

    /// The socket's own address (`getsockname`) or its peer's (`getpeername`); `nil` when there is none.
    private static func address(
        of fd: Int32,
        _ read: (Int32, UnsafeMutablePointer<sockaddr>, UnsafeMutablePointer<socklen_t>) -> Int32
    ) -> sockaddr_storage? {
        var address = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let found = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { read(fd, $0, &length) == 0 }
        }
        return found ? address : nil
    }
}
