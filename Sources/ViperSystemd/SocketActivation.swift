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
        for (fd, _) in self.listeningDescriptors() where self.isListening(fd) {
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

    /// Whether `fd` is a connected stream socket (not listening): what a socket unit with `Accept=yes` passes, one
    /// per connection.
    public static func isConnectedStream(_ fd: Int32) -> Bool {
        var type: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &length) == 0, type == Int32(SOCK_STREAM.rawValue) else {
            return false
        }
        return !self.isListening(fd)
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
}
