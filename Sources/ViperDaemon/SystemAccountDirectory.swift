import ViperSettings

#if canImport(Glibc)
import Glibc
#endif

/// Reads the system's user and group database (NSS: /etc/passwd, /etc/group, …) for the `writers` of schemas.
struct SystemAccountDirectory: AccountDirectory {
    func userName(uid: UInt32) -> String? {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 16_384)
        guard getpwuid_r(uid, &entry, &buffer, buffer.count, &result) == 0, result != nil, let name = entry.pw_name
        else { return nil }
        return String(cString: name)
    }

    func groupNames(uid: UInt32, gid: UInt32) -> [String] {
        guard let user = self.userName(uid: uid) else { return self.groupName(gid: gid).map { [$0] } ?? [] }
        var count: Int32 = 64
        var groups = [gid_t](repeating: 0, count: Int(count))
        if getgrouplist(user, gid, &groups, &count) < 0 {
            groups = [gid_t](repeating: 0, count: Int(count))
            guard getgrouplist(user, gid, &groups, &count) >= 0 else { return [] }
        }
        return groups.prefix(Int(count)).compactMap(self.groupName(gid:))
    }

    private func groupName(gid: UInt32) -> String? {
        var entry = group()
        var result: UnsafeMutablePointer<group>?
        var buffer = [CChar](repeating: 0, count: 16_384)
        guard getgrgid_r(gid, &entry, &buffer, buffer.count, &result) == 0, result != nil, let name = entry.gr_name
        else { return nil }
        return String(cString: name)
    }
}
