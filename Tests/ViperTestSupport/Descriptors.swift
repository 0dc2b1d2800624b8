import Glibc

/// Descriptors a test opens, all closed on `exec`: tests of one process run in parallel, and a child that another
/// test starts (etcd, nginx, a daemon) would otherwise keep a copy of them for its whole life (a pipe never reaching
/// its end, a port still bound, a lock still held).
public enum Descriptors {
    /// `accept(2)`, the connection closed on `exec`: -1 and `errno` on failure.
    public static func accept(_ listener: Int32) -> Int32 {
        let connection = Glibc.accept(listener, nil, nil)
        if connection >= 0 { _ = fcntl(connection, F_SETFD, FD_CLOEXEC) }
        return connection
    }

    /// `pipe(2)`, both ends closed on `exec`: `[read, write]`, or `nil` and `errno` on failure.
    public static func pipe() -> [Int32]? {
        var ends: [Int32] = [-1, -1]
        guard Glibc.pipe(&ends) == 0 else { return nil }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        return ends
    }
}
