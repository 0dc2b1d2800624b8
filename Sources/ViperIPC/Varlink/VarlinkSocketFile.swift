import Glibc
import ViperPOSIX

/// The socket file of a ``VarlinkServerConfiguration/Endpoint/path(_:)`` endpoint: prepared before binding,
/// opened to everyone after, and removed when the server stops if it is still the one the server bound.
struct VarlinkSocketFile: Sendable {
    private struct Identity: Hashable {
        var device: UInt64
        var inode: UInt64
    }

    /// The socket's path.
    let path: String
    /// Where to bind: a staging name beside `path`, renamed to `path` by ``publish()`` once its mode is 0666, so a
    /// client never finds the socket with another mode. `path` itself when the staging name would be too long.
    let bindPath: String
    private var identity: Identity?

    /// Makes `path` ready for binding: creates missing parent directories (mode 0755) and removes a stale socket.
    ///
    /// - Throws: ``VarlinkServerError`` if the path is too long, something that is not a socket is there, a live
    ///   server listens there, or a system call fails.
    static func prepare(path: String) throws(VarlinkServerError) -> VarlinkSocketFile {
        guard !path.isEmpty, path.utf8.count < MemoryLayout.size(ofValue: sockaddr_un().sun_path) else {
            throw .socketPathTooLong(path: path)
        }
        try Self.createParentDirectories(of: path)
        try Self.checkDirectory(of: path)
        var status = stat()
        if lstat(path, &status) != 0 {
            guard errno == ENOENT else { throw .socketPathFailure(path: path, operation: "lstat", errno: errno) }
        } else {
            guard status.st_mode & S_IFMT == S_IFSOCK else { throw .socketPathOccupied(path: path) }
            guard !Self.acceptsConnections(path: path) else { throw .socketInUse(path: path) }
            guard unlink(path) == 0 || errno == ENOENT else {
                throw .socketPathFailure(path: path, operation: "unlink", errno: errno)
            }
        }
        let staging = "\(path).\(getpid()).new"
        let fits = staging.utf8.count < MemoryLayout.size(ofValue: sockaddr_un().sun_path)
        if fits { _ = unlink(staging) }
        return VarlinkSocketFile(path: path, bindPath: fits ? staging : path)
    }

    private init(path: String, bindPath: String) {
        self.path = path
        self.bindPath = bindPath
    }

    /// After binding: lets everyone connect (mode 0666) and remembers which file is ours.
    mutating func publish() throws(VarlinkServerError) {
        try Self.changeMode(of: self.bindPath, to: 0o666, kind: S_IFSOCK)
        if self.bindPath != self.path {
            guard rename(self.bindPath, self.path) == 0 else {
                let error = errno
                _ = unlink(self.bindPath)
                throw .socketPathFailure(path: self.path, operation: "rename", errno: error)
            }
        }
        self.identity = Self.identity(of: self.path)
    }

    /// Removes the socket file, unless it was replaced by another one since ``publish()``.
    func remove() {
        guard let identity = self.identity, Self.identity(of: self.path) == identity else { return }
        _ = unlink(self.path)
    }

    private static func identity(of path: String) -> Identity? {
        var status = stat()
        guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFSOCK else { return nil }
        return Identity(device: UInt64(status.st_dev), inode: UInt64(status.st_ino))
    }

    private static func createParentDirectories(of path: String) throws(VarlinkServerError) {
        let components = path.split(separator: "/", omittingEmptySubsequences: false).dropLast()
        var directory = ""
        for (index, component) in components.enumerated() {
            directory += index == 0 ? String(component) : "/" + component
            guard !component.isEmpty, component != ".", component != ".." else { continue }
            var status = stat()
            if lstat(directory, &status) == 0 { continue }
            guard mkdir(directory, 0o755) == 0 else {
                guard errno == EEXIST else {
                    throw .socketPathFailure(path: directory, operation: "mkdir", errno: errno)
                }
                continue
            }
            // 0755 whatever the umask: under `umask 077` the socket (0666) would sit where no one else may reach it.
            try Self.changeMode(of: directory, to: 0o755, kind: S_IFDIR)
        }
    }

    /// Sets the mode of the `kind` of file this server made at `path`, without following a link: the file is opened
    /// as it is (`O_PATH|O_NOFOLLOW`), checked to be of that kind and this user's, and changed through its
    /// descriptor. A plain `chmod` follows a link that another user swapped in meanwhile (in a directory they may
    /// write), and would open any file to everyone.
    private static func changeMode(of path: String, to mode: mode_t, kind: mode_t) throws(VarlinkServerError) {
        let descriptor = open(path, OpenFlags.pathOnly | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else { throw .socketPathFailure(path: path, operation: "open", errno: errno) }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw .socketPathFailure(path: path, operation: "fstat", errno: errno)
        }
        guard status.st_mode & S_IFMT == kind, status.st_uid == geteuid() else {
            throw .socketPathFailure(
                path: path,
                operation: "chmod",
                errno: status.st_mode & S_IFMT == kind ? EPERM : ELOOP
            )
        }
        guard chmod("/proc/self/fd/\(descriptor)", mode) == 0 else {
            throw .socketPathFailure(path: path, operation: "chmod", errno: errno)
        }
    }

    /// Refuses a socket directory that another user may change: one owned by someone else than this user or root,
    /// or one others may write without the sticky bit (in a sticky directory such as `/tmp` no one may rename or
    /// remove another's file).
    private static func checkDirectory(of path: String) throws(VarlinkServerError) {
        let directory = path.lastIndex(of: "/").map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        var status = stat()
        guard stat(directory, &status) == 0 else {
            throw .socketPathFailure(path: directory, operation: "stat", errno: errno)
        }
        let owner = status.st_uid
        if owner != geteuid() && owner != 0 {
            throw .socketDirectoryUnsafe(path: directory, reason: "belongs to uid \(owner)")
        }
        let mode = status.st_mode
        if mode & (S_IWGRP | S_IWOTH) != 0 && mode & S_ISVTX == 0 {
            let who = mode & S_IWOTH != 0 ? "everyone" : "its group"
            throw .socketDirectoryUnsafe(
                path: directory,
                reason: "may be written by \(who) (mode \(String(mode & 0o7777, radix: 8))) and is not sticky"
            )
        }
    }

    /// Whether a server accepts connections on the socket at `path` (a stale socket refuses them).
    private static func acceptsConnections(path: String) -> Bool {
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
        let descriptor = socket(AF_UNIX, type, 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { bytes in
            bytes.copyBytes(from: path.utf8)
        }
        let result = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                connect(descriptor, socketAddress, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        return result == 0 || errno == EAGAIN || errno == EINPROGRESS
    }
}
