import Glibc

/// An exclusive lock on a state directory for as long as the daemon runs, so that two daemons never share one.
///
/// Two daemons writing the same journals would each acknowledge writes the other then overwrites, and give one
/// revision to two states. The lock is `flock(2)` on the directory itself: no file is added to it, and the kernel
/// releases the lock when the process ends, however it ends, so a crash leaves nothing to clean up.
public final class StateDirectoryLock: Sendable {
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

    /// Locks the directory at `path`, creating it when missing.
    ///
    /// Returns `nil` when the directory cannot be created or opened (it is a file, or a parent is not writable): the
    /// repository reports that, and refuses writes, as it would without the lock. Throws when another process holds
    /// the lock.
    public static func acquire(_ path: String) throws(StorageError) -> StateDirectoryLock? {
        do {
            try FileOperations.createDirectory(path)
        } catch {
            return nil
        }
        let descriptor = Glibc.open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        // `flock` names both the function and a struct: the type picks the function.
        let lock: (Int32, Int32) -> Int32 = Glibc.flock(_:_:)
        while lock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            let code = Glibc.errno
            if code == EINTR { continue }
            _ = Glibc.close(descriptor)
            if code == EWOULDBLOCK {
                throw StorageError(
                    "the state directory \(path) is in use by another viper-settingsd (it holds the directory's lock);"
                        + " stop that daemon, or give this one another state directory (--state-dir)",
                    errno: code
                )
            }
            throw .system("flock", path, errno: code)
        }
        return StateDirectoryLock(path: path, descriptor: descriptor)
    }
}
