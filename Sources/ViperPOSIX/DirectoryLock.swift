import Glibc

/// An exclusive `flock(2)` on a directory, held while this object lives: one process per state directory.
///
/// No file is added to the directory, and the kernel releases the lock when the process ends, however it ends, so
/// a crash leaves nothing to clean up.
public final class DirectoryLock: Sendable {
    /// Why a lock was not taken.
    public enum Failure: Error, Equatable {
        /// Another open description of the directory holds the lock (usually another process).
        case held
        /// `flock` failed otherwise, with this `errno`.
        case system(errno: Int32)
    }

    /// The locked directory.
    public let path: String
    private let descriptor: Int32

    private init(path: String, descriptor: Int32) {
        self.path = path
        self.descriptor = descriptor
    }

    deinit {
        // Closing the last descriptor of the open directory releases the lock.
        _ = Glibc.close(self.descriptor)
    }

    /// Whether `path` still names the directory locked: not removed, renamed away or replaced by another since.
    public var isAtPath: Bool {
        var locked = Glibc.stat()
        var named = Glibc.stat()
        // `stat` names both the function and the struct: the type picks the function.
        let status: (UnsafePointer<CChar>, UnsafeMutablePointer<Glibc.stat>) -> Int32 = Glibc.stat(_:_:)
        guard Glibc.fstat(self.descriptor, &locked) == 0, status(self.path, &named) == 0 else { return false }
        return locked.st_dev == named.st_dev && locked.st_ino == named.st_ino
    }

    /// Locks the existing directory at `path`. Returns `nil` when it cannot be opened as a directory (missing, a
    /// file, not readable): the caller reports that as it would without the lock.
    public static func acquire(_ path: String) throws(Failure) -> DirectoryLock? {
        let descriptor = Glibc.open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        // `flock` names both the function and a struct: the type picks the function.
        let lock: (Int32, Int32) -> Int32 = Glibc.flock(_:_:)
        while lock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            let code = Glibc.errno
            if code == EINTR { continue }
            _ = Glibc.close(descriptor)
            throw code == EWOULDBLOCK ? .held : .system(errno: code)
        }
        return DirectoryLock(path: path, descriptor: descriptor)
    }
}
