import Glibc
import ViperPOSIX

/// The blocking POSIX calls storage is made of, each throwing a ``StorageError`` that names the file and the
/// `errno` text. Durability is explicit: nothing here syncs unless asked to.
///
/// Every function blocks; call them on a thread pool, never on the cooperative pool.
enum FileOperations {
    /// The whole content of a regular file, or `nil` when it does not exist. Never waits on a FIFO or a device, and
    /// never reads through a symbolic link (as state files are never written through one): something other than a
    /// regular file is an error (see ``RegularFile``).
    ///
    /// A file larger than `limit` is refused, not read: a state file the daemon could not have written (a disk
    /// error, a file copied over it) must not take its memory.
    static func readFile(_ path: String, limit: Int) throws(StorageError) -> [UInt8]? {
        do {
            return try RegularFile.contents(of: path, limit: limit, followingLinks: false)
        } catch {
            switch error {
            case .system("open", ELOOP):
                throw Self.symbolicLinkError(path)
            case .system("read", EFBIG):
                throw StorageError(
                    """
                    \(path) is larger than \(limit >> 20) MiB, more than a state file of its module can be; move \
                    it out of the way
                    """,
                    errno: EFBIG
                )
            case .system(let operation, let code): throw .system(operation, path, errno: code)
            case .notRegularFile(let kind):
                throw StorageError("\(path) is \(kind), expected a file; move it out of the way", errno: EINVAL)
            }
        }
    }

    /// A symbolic link where a state file (or `expected`, a file of `what`) belongs: the daemon neither reads nor
    /// writes through one; `then` says what to do, or what the daemon does.
    static func symbolicLinkError(
        _ path: String,
        expected: String = "a file",
        what: String = "its state files",
        then: String = "; move it out of the way (or put the file itself there)"
    ) -> StorageError {
        let target = Self.linkTarget(path).map { " (to \($0))" } ?? ""
        return StorageError(
            "\(path) is a symbolic link\(target), expected \(expected): the daemon neither reads nor writes \(what) "
                + "through links\(then)",
            errno: ELOOP
        )
    }

    /// Creates `name` anew for writing in the open directory `directory` (`AT_FDCWD`: `name` is a path; `path` names
    /// it in errors): whatever is there (a file a crash left, or a symbolic link someone who can write the directory
    /// planted, to make the daemon write through it into a file of root's) is removed first, and the file is opened
    /// with `O_EXCL | O_NOFOLLOW`, so that nothing but a new file is ever written.
    static func createNew(_ name: String, in directory: Int32 = AT_FDCWD, path: String) throws(StorageError) -> Int32 {
        for _ in 0..<3 {
            _ = Glibc.unlinkat(directory, name, 0)
            let descriptor = Glibc.openat(directory, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
            if descriptor >= 0 { return descriptor }
            let code = Glibc.errno
            // Made again between the removal and the open: someone else writes this directory; try again, a little.
            guard code == EEXIST || code == EINTR else { throw .system("open", path, errno: code) }
        }
        throw .system("open", path, errno: EEXIST)
    }

    /// Opens the directory at `path` for the `*at` calls (reading, listing, fsync), never through a symbolic link
    /// (`O_NOFOLLOW`): `nil` when nothing is there; a symbolic link (whatever it points to) or something other than
    /// a directory is an error naming the path and what is there, `what` saying what the directory is for.
    static func openDirectory(_ path: String, what: String) throws(StorageError) -> Int32? {
        while true {
            let descriptor = Glibc.open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            if descriptor >= 0 { return descriptor }
            let code = Glibc.errno
            if code == EINTR { continue }
            if code == ENOENT { return nil }
            guard code == ELOOP || code == ENOTDIR else { throw .system("open", path, errno: code) }
            var info = stat()
            guard Glibc.lstat(path, &info) == 0 else { throw .system("open", path, errno: code) }
            if info.st_mode & S_IFMT == S_IFLNK {
                throw Self.symbolicLinkError(
                    path,
                    expected: "a directory",
                    what: what,
                    then: "; move it out of the way"
                )
            }
            throw StorageError(
                "\(path) is \(RegularFile.kind(of: info.st_mode)), expected a directory (of \(what)); move it out of "
                    + "the way",
                errno: ENOTDIR
            )
        }
    }

    /// The names in the open directory `descriptor` (`path` names it in errors), without `.` and `..`; the
    /// descriptor stays open.
    static func directoryEntries(_ descriptor: Int32, path: String) throws(StorageError) -> [String] {
        let copy = Glibc.dup(descriptor)
        guard copy >= 0 else { throw .system("dup", path, errno: Glibc.errno) }
        guard let directory = Glibc.fdopendir(copy) else {
            let code = Glibc.errno
            _ = Glibc.close(copy)
            throw .system("opendir", path, errno: code)
        }
        defer { _ = Glibc.closedir(directory) }
        // The copy shares its position with `descriptor`, which an earlier listing may have moved.
        Glibc.rewinddir(directory)
        return try self.entries(of: directory, path: path)
    }

    /// The largest state file read, unless its module's schema lets it hold more (``ModuleLoader/fileLimit(_:)``):
    /// far above what the daemon writes with the default `max-value-size` (a snapshot holds a module's values, and
    /// a journal is folded into it past 1 MiB).
    static let stateFileLimit = 256 << 20

    /// Opens a file for appending, creating it when missing; `created` tells whether it was just created, in which
    /// case its directory must be synced before the new file counts as durable.
    static func openForAppend(_ path: String) throws(StorageError) -> (descriptor: Int32, created: Bool) {
        // Never through a symbolic link: one planted by someone who can write the directory would make the daemon
        // append to a file of its choosing (ELOOP, "Too many levels of symbolic links", names the problem).
        let flags = O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW
        while true {
            let created = Glibc.open(path, flags | O_CREAT | O_EXCL, 0o644)
            if created >= 0 { return (created, true) }
            var code = Glibc.errno
            if code == EINTR { continue }
            guard code == EEXIST else { throw .system("open", path, errno: code) }
            let existing = Glibc.open(path, flags)
            if existing >= 0 { return (existing, false) }
            code = Glibc.errno
            // Removed between the two calls: try creating it again.
            if code == ENOENT || code == EINTR { continue }
            if code == ELOOP { throw Self.symbolicLinkError(path) }
            throw .system("open", path, errno: code)
        }
    }

    /// Writes every byte, retrying short writes and interruptions.
    static func writeAll(_ descriptor: Int32, _ bytes: [UInt8], path: String) throws(StorageError) {
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeBytes { buffer in
                Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
            }
            if count < 0 {
                let code = Glibc.errno
                if code == EINTR { continue }
                throw .system("write", path, errno: code)
            }
            offset += count
        }
    }

    /// `fdatasync`: the file's data and the metadata needed to read it back are on disk.
    static func dataSync(_ descriptor: Int32, path: String) throws(StorageError) {
        while Glibc.fdatasync(descriptor) != 0 {
            let code = Glibc.errno
            if code != EINTR { throw .system("fdatasync", path, errno: code) }
        }
    }

    /// `fsync`: the file's data and all its metadata are on disk.
    static func sync(_ descriptor: Int32, path: String) throws(StorageError) {
        while Glibc.fsync(descriptor) != 0 {
            let code = Glibc.errno
            if code != EINTR { throw .system("fsync", path, errno: code) }
        }
    }

    /// Syncs a directory, so that the names created, renamed or removed in it are durable.
    static func syncDirectory(_ path: String) throws(StorageError) {
        let descriptor = Glibc.open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .system("open", path, errno: Glibc.errno) }
        defer { _ = Glibc.close(descriptor) }
        try self.sync(descriptor, path: path)
    }

    /// Cuts a file to `length` bytes.
    static func truncate(_ descriptor: Int32, to length: Int, path: String) throws(StorageError) {
        while Glibc.ftruncate(descriptor, off_t(length)) != 0 {
            let code = Glibc.errno
            if code != EINTR { throw .system("ftruncate", path, errno: code) }
        }
    }

    /// Cuts the file at `path` to `length` bytes and syncs it.
    static func truncateFile(_ path: String, to length: Int) throws(StorageError) {
        let descriptor = Glibc.open(path, O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .system("open", path, errno: Glibc.errno) }
        defer { _ = Glibc.close(descriptor) }
        try self.truncate(descriptor, to: length, path: path)
        try self.sync(descriptor, path: path)
    }

    /// Renames a file, replacing any file at `destination`.
    static func rename(_ source: String, to destination: String) throws(StorageError) {
        guard Glibc.rename(source, destination) == 0 else {
            throw .system("rename", "\(source) to \(destination)", errno: Glibc.errno)
        }
    }

    /// The size of the file at `path` (not following a link), or `nil` when there is none (or it cannot be looked at).
    static func fileSize(_ path: String) -> Int? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return Int(info.st_size)
    }

    /// The size of an open file, in bytes.
    static func size(_ descriptor: Int32, path: String) throws(StorageError) -> Int {
        try self.status(descriptor, path: path).size
    }

    /// The size of an open file and how many names it has (0 once it was removed while open).
    static func status(_ descriptor: Int32, path: String) throws(StorageError) -> (size: Int, links: Int) {
        var info = stat()
        guard Glibc.fstat(descriptor, &info) == 0 else { throw .system("fstat", path, errno: Glibc.errno) }
        return (Int(info.st_size), Int(info.st_nlink))
    }

    /// The size of the file open as `descriptor` when `path` still names it (not removed, renamed away or replaced:
    /// `lstat` of the path finds the same device and inode as `fstat` of the descriptor); `nil` when it does not.
    static func namedSize(_ path: String, descriptor: Int32) throws(StorageError) -> Int? {
        var open = stat()
        guard Glibc.fstat(descriptor, &open) == 0 else { throw .system("fstat", path, errno: Glibc.errno) }
        var named = stat()
        guard Glibc.lstat(path, &named) == 0 else {
            let code = Glibc.errno
            if code == ENOENT { return nil }
            throw .system("lstat", path, errno: code)
        }
        return open.st_dev == named.st_dev && open.st_ino == named.st_ino ? Int(open.st_size) : nil
    }

    /// What the symbolic link at `path` points to; `nil` when it is no link or cannot be read.
    static func linkTarget(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = Glibc.readlink(path, &buffer, buffer.count - 1)
        guard count >= 0 else { return nil }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The device and inode of what is at `path` (following links), or the `errno` of `stat`.
    static func identity(_ path: String) -> Result<FileIdentity, StorageError> {
        var info = stat()
        guard stat(path, &info) == 0 else { return .failure(.system("stat", path, errno: Glibc.errno)) }
        return .success(
            FileIdentity(
                device: UInt64(info.st_dev),
                inode: UInt64(info.st_ino),
                isDirectory: info.st_mode & S_IFMT == S_IFDIR
            )
        )
    }

    /// What is at `path` (following symbolic links): `nil` when nothing is, else a word for people and whether it
    /// is a regular file, a directory, or something else.
    static func kind(_ path: String) -> (isFile: Bool, isDirectory: Bool, name: String)? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return (true, false, "a regular file")
        case S_IFDIR: return (false, true, "a directory")
        case S_IFSOCK: return (false, false, "a socket")
        case S_IFIFO: return (false, false, "a named pipe")
        default: return (false, false, "a device file")
        }
    }

    /// Whether a symbolic link is at `path` (`lstat`), whatever it points to.
    static func isSymbolicLink(_ path: String) -> Bool {
        var info = stat()
        return Glibc.lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFLNK
    }

    /// Whether anything exists at `path` (without following a final symbolic link).
    static func exists(_ path: String) -> Bool {
        var info = stat()
        return Glibc.lstat(path, &info) == 0
    }

    /// The `errno` of checking that this process may access `path` with `mode` (`R_OK`, `W_OK`, `X_OK`), by its
    /// effective ids; `nil` when it may.
    static func accessError(_ path: String, _ mode: Int32) -> Int32? {
        Glibc.faccessat(AT_FDCWD, path, mode, AT_EACCESS) == 0 ? nil : Glibc.errno
    }

    /// Removes a file; a missing file is not an error.
    static func removeIfPresent(_ path: String) {
        _ = Glibc.unlink(path)
    }

    /// Removes a file; a missing file is not an error, any other failure is.
    static func remove(_ path: String) throws(StorageError) {
        guard Glibc.unlink(path) == 0 else {
            let code = Glibc.errno
            if code == ENOENT { return }
            throw .system("unlink", path, errno: code)
        }
    }

    /// Closes a descriptor, ignoring errors (there is nothing left to sync).
    static func close(_ descriptor: Int32) {
        _ = Glibc.close(descriptor)
    }

    /// Creates `path` and its missing parents (mode 0755), syncing each parent that gained an entry. A parent that
    /// is there but cannot hold it (a symbolic link to nothing, `/proc`) fails with the `mkdir` of `path`.
    static func createDirectory(_ path: String) throws(StorageError) {
        if Glibc.mkdir(path, 0o755) == 0 {
            try self.syncDirectory(self.parent(of: path))
            return
        }
        var code = Glibc.errno
        let parent = self.parent(of: path)
        if code == ENOENT && parent != path {
            try self.createDirectory(parent)
            // Once: when the parent is there and `path` still cannot be made, asking again would never end.
            if Glibc.mkdir(path, 0o755) == 0 {
                try self.syncDirectory(parent)
                return
            }
            code = Glibc.errno
        }
        guard code == EEXIST else { throw .system("mkdir", path, errno: code) }
    }

    /// The names in a directory, without `.` and `..`.
    static func directoryEntries(_ path: String) throws(StorageError) -> [String] {
        guard let directory = Glibc.opendir(path) else { throw .system("opendir", path, errno: Glibc.errno) }
        defer { _ = Glibc.closedir(directory) }
        return try self.entries(of: directory, path: path)
    }

    private static func entries(of directory: OpaquePointer, path: String) throws(StorageError) -> [String] {
        var names: [String] = []
        while true {
            Glibc.errno = 0
            guard let entry = Glibc.readdir(directory) else {
                let code = Glibc.errno
                if code != 0 { throw .system("readdir", path, errno: code) }
                return names
            }
            let name = withUnsafePointer(to: &entry.pointee.d_name) {
                String(cString: UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self))
            }
            if name != "." && name != ".." { names.append(name) }
        }
    }

    /// The directory part of a path: `/a/b` → `/a`, `b` → `.`, `/b` → `/`.
    static func parent(of path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed.removeLast() }
        guard let slash = trimmed.lastIndex(of: "/") else { return "." }
        return slash == trimmed.startIndex ? "/" : String(trimmed[..<slash])
    }
}

/// Which file a path named when it was looked at: its device and inode.
struct FileIdentity: Sendable, Hashable {
    var device: UInt64
    var inode: UInt64
    var isDirectory: Bool
}
