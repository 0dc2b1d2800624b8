import Glibc

/// The names of users and groups, for messages: `root`, `nobody`; the number when this host has no name for it.
enum AccountName {
    /// The name of the user `uid`, or its number.
    static func user(_ uid: UInt32) -> String {
        var buffer = [CChar](repeating: 0, count: 16_384)
        let name = buffer.withUnsafeMutableBufferPointer { buffer -> String? in
            var entry = passwd()
            var result: UnsafeMutablePointer<passwd>?
            guard let base = buffer.baseAddress, getpwuid_r(uid, &entry, base, buffer.count, &result) == 0,
                result != nil,
                let name = entry.pw_name
            else { return nil }
            return String(cString: name)
        }
        return name ?? String(uid)
    }

    /// The name of the group `gid`, or its number.
    static func group(_ gid: UInt32) -> String {
        var buffer = [CChar](repeating: 0, count: 16_384)
        let name = buffer.withUnsafeMutableBufferPointer { buffer -> String? in
            var entry = Glibc.group()
            var result: UnsafeMutablePointer<Glibc.group>?
            guard let base = buffer.baseAddress, getgrgid_r(gid, &entry, base, buffer.count, &result) == 0,
                result != nil,
                let name = entry.gr_name
            else { return nil }
            return String(cString: name)
        }
        return name ?? String(gid)
    }
}
