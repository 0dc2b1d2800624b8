import Glibc

/// Reads a whole regular file, and never waits on something that is not one: the file is opened with `O_NONBLOCK`
/// (opening a FIFO for reading otherwise blocks until a writer comes, which a signal does not end), checked with
/// `fstat` to be a regular file, then read. Symbolic links are followed unless asked not to.
///
/// ```swift
/// guard let bytes = try RegularFile.contents(of: "/etc/viper-settings/viper-settingsd.conf") else { … }
/// ```
public enum RegularFile {
    /// Why a file was not read.
    public enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// The system call `operation` failed with `errno`.
        case system(operation: String, errno: Int32)
        /// Something other than a regular file is at the path; `kind` says what, for people: "a FIFO".
        case notRegularFile(kind: String)

        /// "it is a FIFO, not a regular file", or "open: Permission denied".
        public var description: String {
            switch self {
            case .system(let operation, let code): "\(operation): \(SystemErrorText.describe(code))"
            case .notRegularFile(let kind): "it is \(kind), not a regular file"
            }
        }
    }

    /// The whole content of the regular file at `path`, or `nil` when nothing is there. Blocks on the disk, never on
    /// a FIFO or a device. A file longer than `limit` bytes is not read to its end: it fails with `read` and
    /// `EFBIG` ("File too large"). With `followingLinks` false, a symbolic link at `path` fails with `open` and
    /// `ELOOP`. A relative `path` is looked up in the open directory `directory` (`openat`), the working directory
    /// when `nil`.
    public static func contents(
        of path: String,
        in directory: Int32? = nil,
        limit: Int = .max,
        followingLinks: Bool = true
    ) throws(Failure) -> [UInt8]? {
        let flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | (followingLinks ? 0 : O_NOFOLLOW)
        let directory = directory ?? AT_FDCWD
        var descriptor: Int32
        repeat {
            descriptor = Glibc.openat(directory, path, flags)
        } while descriptor < 0 && Glibc.errno == EINTR
        if descriptor < 0 {
            let code = Glibc.errno
            if code == ENOENT { return nil }
            // Opening a socket fails with ENXIO: say what is there rather than "No such device or address".
            var info = stat()
            if code == ENXIO, fstatat(directory, path, &info, followingLinks ? 0 : AT_SYMLINK_NOFOLLOW) == 0,
                !Self.isRegularFile(info.st_mode)
            {
                throw .notRegularFile(kind: Self.kind(of: info.st_mode))
            }
            throw .system(operation: "open", errno: code)
        }
        defer { _ = Glibc.close(descriptor) }
        var info = stat()
        guard Glibc.fstat(descriptor, &info) == 0 else { throw .system(operation: "fstat", errno: Glibc.errno) }
        guard Self.isRegularFile(info.st_mode) else { throw .notRegularFile(kind: Self.kind(of: info.st_mode)) }
        guard info.st_size <= limit else { throw .system(operation: "read", errno: EFBIG) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Int(max(info.st_size, 0)))
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                let code = Glibc.errno
                if code == EINTR { continue }
                throw .system(operation: "read", errno: code)
            }
            if count == 0 { return bytes }
            // The file may have grown since fstat.
            guard count <= limit - bytes.count else { throw .system(operation: "read", errno: EFBIG) }
            bytes.append(contentsOf: chunk[0..<count])
        }
    }

    private static func isRegularFile(_ mode: mode_t) -> Bool { mode & S_IFMT == S_IFREG }

    /// The kind of a file, for people (`a FIFO`, `a regular file`), from its `st_mode`.
    public static func kind(of mode: UInt32) -> String {
        switch mode & S_IFMT {
        case S_IFREG: "a regular file"
        case S_IFDIR: "a directory"
        case S_IFIFO: "a FIFO"
        case S_IFSOCK: "a socket"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        default: "a file of an unknown kind"
        }
    }
}
