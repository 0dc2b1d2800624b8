import Glibc
import ViperPOSIX

/// The directory a destination is in, open: every file operation of an apply is made relative to its descriptor
/// (`openat`, `renameat`, `linkat`, `unlinkat`), so that a directory renamed or swapped for a symbolic link while a
/// target is applied cannot move a write, a rename or a removal elsewhere. Under a root (`--root`), it is reached
/// from the root one directory at a time without following a symbolic link (`O_NOFOLLOW`): a link below the root is
/// refused, as the host would resolve it.
final class DestinationDirectory {
    /// Its path, for messages and for the path a check command is given.
    let path: String
    /// Its descriptor, open for reading (fsync, listing) until the object goes.
    let descriptor: Int32

    private init(path: String, descriptor: Int32) {
        self.path = path
        self.descriptor = descriptor
    }

    deinit { close(self.descriptor) }

    /// Opens the directory of `file`; under `root` (not empty, and `file` below it), without following a symbolic
    /// link below the root. A missing directory is created with mode 0755 whatever the umask when `creating` (a
    /// service must read its configuration, also when the applier was started by hand under `umask 077`); without
    /// it, nil is returned.
    static func open(
        containing file: String,
        root: String = "",
        creating: Bool
    ) throws(ApplyError) -> DestinationDirectory? {
        let path = FileIO.directory(of: file)
        let confined = !root.isEmpty && path.hasPrefix(root) && (path.count == root.count || path.hasPrefix(root + "/"))
        let start = confined ? root : path.hasPrefix("/") ? "/" : "."
        if confined && creating { try FileIO.makeDirectories(root) }
        var current = Glibc.open(start, OpenFlags.pathOnly | O_DIRECTORY | O_CLOEXEC)
        guard current >= 0 else {
            if errno == ENOENT && !creating { return nil }
            throw .file(path: start, operation: "open the directory", reason: SystemErrorText.describe(errno))
        }
        var reached = start == "/" ? "" : start
        for part in path.dropFirst(confined ? root.count : 0).split(separator: "/") where part != "." {
            reached += "/" + part
            let next: Int32
            do throws(ApplyError) {
                guard let opened = try Self.step(current, String(part), reached, file, confined, creating) else {
                    close(current)
                    return nil
                }
                next = opened
            } catch {
                close(current)
                throw error
            }
            close(current)
            current = next
        }
        // A descriptor opened with O_PATH can neither be fsynced nor listed.
        let descriptor = openat(current, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        close(current)
        guard descriptor >= 0 else {
            throw .file(path: path, operation: "open the directory", reason: SystemErrorText.describe(errno))
        }
        return DestinationDirectory(path: path, descriptor: descriptor)
    }

    /// Opens `part` in `parent` (creating it when missing and `creating`), not following a symbolic link when
    /// `confined`; nil when it is missing.
    private static func step(
        _ parent: Int32,
        _ part: String,
        _ reached: String,
        _ file: String,
        _ confined: Bool,
        _ creating: Bool
    ) throws(ApplyError) -> Int32? {
        let flags = OpenFlags.pathOnly | O_DIRECTORY | O_CLOEXEC | (confined ? O_NOFOLLOW : 0)
        var opened = openat(parent, part, flags)
        if opened < 0 && errno == ENOENT {
            guard creating else { return nil }
            if mkdirat(parent, part, 0o755) == 0 {
                // Its mode set on what was made, opened without following a link: not on what replaced it since.
                opened = openat(parent, part, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                if opened >= 0 && fchmod(opened, 0o755) != 0 {
                    let error = ApplyError.file(
                        path: reached,
                        operation: "chmod",
                        reason: SystemErrorText.describe(errno)
                    )
                    close(opened)
                    throw error
                }
            } else if errno == EEXIST {
                opened = openat(parent, part, flags)  // made meanwhile by another
            } else {
                throw .file(path: reached, operation: "create the directory", reason: SystemErrorText.describe(errno))
            }
        }
        guard opened < 0 else { return opened }
        let code = errno
        var info = stat()
        if code == ENOTDIR || code == ELOOP, fstatat(parent, part, &info, AT_SYMLINK_NOFOLLOW) == 0 {
            if info.st_mode & S_IFMT == S_IFLNK {
                throw .file(
                    path: file,
                    operation: "write",
                    reason:
                        "\(reached) is a symbolic link, which --root does not follow (it would lead out of the root)"
                )
            }
            throw .file(path: file, operation: "write", reason: "\(reached) is not a directory")
        }
        throw .file(path: reached, operation: "open the directory", reason: SystemErrorText.describe(code))
    }

    /// The path of `name` in it, for messages and commands.
    func path(of name: String) -> String {
        self.path == "/" ? "/" + name : self.path + "/" + name
    }

    /// What `lstat` says of `name` in it (a link itself, not what it points to); nil when there is nothing there.
    func status(of name: String) -> stat? {
        var info = stat()
        return fstatat(self.descriptor, name, &info, AT_SYMLINK_NOFOLLOW) == 0 ? info : nil
    }

    /// Renames `name` over `target` in it and fsyncs it, so that the change survives a crash.
    func rename(_ name: String, over target: String) throws(ApplyError) {
        guard renameat(self.descriptor, name, self.descriptor, target) == 0 else {
            let code = errno
            var reason = SystemErrorText.describe(code)
            if code == ENOENT, self.status(of: name) == nil {
                // The new file is gone, not the destination: someone removed it meanwhile.
                reason = """
                    the new file \(self.path(of: name)) was removed before it could be renamed into place (is \
                    another viper-settings-apply writing the same files?)
                    """
            }
            throw .file(path: self.path(of: target), operation: "replace", reason: reason)
        }
        try self.sync()
    }

    /// Whether the applier's file `name` may be in use by another process: its writer holds a lock on it (see
    /// ``TemporaryFile``), or it changed in the last few seconds (a writer that created it and has not locked it yet,
    /// a matter of microseconds). Such a file is not a crash's leftover.
    func mayBeInUse(_ name: String) -> Bool {
        let descriptor = openat(self.descriptor, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        if flock(descriptor, LOCK_EX | LOCK_NB) != 0 { return errno == EWOULDBLOCK }
        flock(descriptor, LOCK_UN)
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return false }
        return time(nil) - info.st_mtim.tv_sec < Self.recentSeconds
    }

    /// How recent a change makes a file of the applier's count as in use: short, so that the first write after a
    /// restart (systemd restarts the applier after a second) removes a crash's leftovers.
    static let recentSeconds = 3

    /// Makes `link` a second name of the entry `name` (a regular file or a symbolic link, not what it points to): the
    /// same inode, with its owner, mode and other links. An entry called `link` is removed first.
    func link(_ name: String, as link: String) throws(ApplyError) {
        unlinkat(self.descriptor, link, 0)
        guard linkat(self.descriptor, name, self.descriptor, link, 0) == 0 else {
            throw .file(
                path: self.path(of: link),
                operation: "keep the previous file as",
                reason: SystemErrorText.describe(errno)
            )
        }
    }

    /// Removes `name` from it (nothing there is no error) and fsyncs it.
    func remove(_ name: String) throws(ApplyError) {
        guard unlinkat(self.descriptor, name, 0) == 0 || errno == ENOENT else {
            throw .file(path: self.path(of: name), operation: "remove", reason: SystemErrorText.describe(errno))
        }
        try self.sync()
    }

    /// Removes `name` from it, if it is there, without a word: a file of the applier's that is of no use any more.
    func discard(_ name: String) {
        unlinkat(self.descriptor, name, 0)
    }

    /// fsyncs it: its entries as they are survive a crash.
    func sync() throws(ApplyError) {
        guard fsync(self.descriptor) == 0 else {
            throw .file(path: self.path, operation: "fsync", reason: SystemErrorText.describe(errno))
        }
    }

    /// The names of its entries.
    func names() -> [String] {
        let copy = dup(self.descriptor)
        guard copy >= 0 else { return [] }
        guard let stream = fdopendir(copy) else {
            close(copy)
            return []
        }
        defer { closedir(stream) }
        rewinddir(stream)  // the copy shares its position with the descriptor, which an earlier listing moved
        var names: [String] = []
        while let entry = readdir(stream) {
            names.append(
                withUnsafeBytes(of: entry.pointee.d_name) { raw in
                    String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
                }
            )
        }
        return names
    }
}
