import Glibc
import ViperPOSIX

/// An exclusive lock on a state directory for as long as the daemon runs, so that two daemons never share one.
///
/// Two daemons writing the same journals would each acknowledge writes the other then overwrites, and give one
/// revision to two states. The lock is a ``DirectoryLock`` (`flock(2)` on the directory itself).
public final class StateDirectoryLock: Sendable {
    private let lock: DirectoryLock

    /// The locked directory.
    public var path: String { self.lock.path }

    private init(lock: DirectoryLock) {
        self.lock = lock
    }

    /// Locks the directory at `path`, creating it when missing.
    ///
    /// Returns `nil` when something that is not a directory is in the way (a file): the repository reports that,
    /// and refuses writes, as it would without the lock. Throws when the directory cannot be created (a parent
    /// that is not writable: the daemon would otherwise create it at its first write, later, without the lock) and
    /// when another process holds the lock.
    public static func acquire(_ path: String) throws(StorageError) -> StateDirectoryLock? {
        do {
            try FileOperations.createDirectory(path)
        } catch {
            guard FileOperations.kind(path) != nil else {
                throw StorageError("cannot create the state directory \(path): \(error.message)", errno: error.errno)
            }
            return nil
        }
        do throws(DirectoryLock.Failure) {
            return try DirectoryLock.acquire(path).map(StateDirectoryLock.init(lock:))
        } catch {
            switch error {
            case .held:
                throw StorageError(
                    "the state directory \(path) is in use by another viper-settingsd (it holds the directory's"
                        + " lock); stop that daemon, or give this one another state directory (--state-dir)",
                    errno: EWOULDBLOCK
                )
            case .system(let code):
                throw .system("flock", path, errno: code)
            }
        }
    }
}
