import Glibc
import ViperSettings

/// Reads the system's user and group database (NSS: /etc/passwd, /etc/group, …) for the names in the `writers` of
/// schemas: the ids of writers' names, to compare with callers' ids and to warn about names that do not exist. Group
/// membership is not read here: it comes from the caller's credentials.
struct SystemAccountDirectory: AccountDirectory {
    let serviceUID: UInt32?

    /// The accounts of this system; `serviceUID` is the daemon's own uid unless it is root.
    init(serviceUID: UInt32? = getuid() == 0 ? nil : getuid()) {
        self.serviceUID = serviceUID
    }

    func userID(named name: String) -> UInt32? {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 16_384)
        guard getpwnam_r(name, &entry, &buffer, buffer.count, &result) == 0, result != nil else { return nil }
        return entry.pw_uid
    }

    func groupID(named name: String) -> UInt32? {
        var entry = group()
        var result: UnsafeMutablePointer<group>?
        var buffer = [CChar](repeating: 0, count: 16_384)
        guard getgrnam_r(name, &entry, &buffer, buffer.count, &result) == 0, result != nil else { return nil }
        return entry.gr_gid
    }
}
