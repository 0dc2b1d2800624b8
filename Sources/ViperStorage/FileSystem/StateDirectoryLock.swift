import Glibc
import Synchronization
import ViperPOSIX

/// An exclusive lock on a state directory for as long as the daemon runs, so that two daemons never share one.
///
/// Two daemons writing the same journals would each acknowledge writes the other then overwrites, and give one
/// revision to two states. The lock is a ``DirectoryLock`` (`flock(2)` on the directory itself). When the directory
/// cannot be opened at start (a file in the way, no permission), the daemon starts without it and its writes are
/// refused; ``heldOrTaken()`` takes it before any write, so that a write never lands in a directory another daemon
/// has locked meanwhile.
public final class StateDirectoryLock: Sendable {
    /// The locked directory.
    public let path: String
    private let lock: Mutex<DirectoryLock?>

    private init(path: String, lock: DirectoryLock?) {
        self.path = path
        self.lock = Mutex(lock)
    }

    /// Whether the lock is held now.
    public var isHeld: Bool { self.lock.withLock { $0 != nil } }

    /// Locks the directory at `path`, creating it when missing.
    ///
    /// When something that is not a directory is in the way (a file), or the directory cannot be opened, the lock
    /// is returned without being held: the repository reports that and refuses writes, each of which first takes
    /// the lock (``heldOrTaken()``). Throws when the directory cannot be created (a parent that is not writable: the
    /// daemon would otherwise create it at its first write, later) and when another process holds the lock.
    public static func acquire(_ path: String) throws(StorageError) -> StateDirectoryLock {
        do {
            try FileOperations.createDirectory(path)
        } catch {
            guard FileOperations.kind(path) != nil else {
                throw StorageError("cannot create the state directory \(path): \(error.message)", errno: error.errno)
            }
            return StateDirectoryLock(path: path, lock: nil)
        }
        if FileOperations.kind(path) == nil {
            // `mkdir` found something there (EEXIST) that `stat` cannot follow: a symbolic link to nothing.
            throw StorageError(
                "cannot create the state directory \(path): it is a symbolic link to \(FileOperations.linkTarget(path) ?? "?"), which does not exist",
                errno: ENOENT
            )
        }
        do throws(DirectoryLock.Failure) {
            return StateDirectoryLock(path: path, lock: try DirectoryLock.acquire(path))
        } catch {
            throw Self.failure(error, path: path)
        }
    }

    /// `nil` once the lock is held; else tries to take it (creating the directory when missing, as the first write
    /// would) and returns why it cannot be: the directory cannot be made or opened, or another daemon holds it.
    /// Blocks on the file system briefly; call it where the write's file operations run.
    public func heldOrTaken() -> StorageError? {
        self.lock.withLock { held -> StorageError? in
            if held != nil { return nil }
            do throws(StorageError) {
                try FileOperations.createDirectory(self.path)
            } catch {
                return StorageError(
                    "the state directory \(self.path) cannot be locked: \(error.message)",
                    errno: error.errno
                )
            }
            do throws(DirectoryLock.Failure) {
                guard let taken = try DirectoryLock.acquire(self.path) else {
                    let code = Glibc.errno
                    return .system("open", self.path, errno: code)
                }
                held = taken
                return nil
            } catch {
                return Self.failure(error, path: self.path)
            }
        }
    }

    /// Why nothing may be written at the directory's path although the lock is held: the directory locked was
    /// removed or replaced while the daemon ran, and what is at the path now is not locked (another daemon may take
    /// it); `nil` while it is there, and when the lock is not held (``heldOrTaken()`` tells why).
    public func movedSinceLocked() -> StorageError? {
        self.lock.withLock { held -> StorageError? in
            guard let held, !held.isAtPath else { return nil }
            let what = FileOperations.kind(self.path) == nil ? "removed" : "replaced by another directory"
            return StateDirectory.replaced(self.path, what)
        }
    }

    private static func failure(_ error: DirectoryLock.Failure, path: String) -> StorageError {
        switch error {
        case .held:
            StorageError(
                "the state directory \(path) is in use by another viper-settingsd (it holds the directory's"
                    + " lock); stop that daemon, or give this one another state directory (--state-dir)",
                errno: EWOULDBLOCK
            )
        case .system(let code):
            .system("flock", path, errno: code)
        }
    }
}
