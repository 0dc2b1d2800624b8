import Glibc

/// The names of users and groups, for messages: `root`, `nobody`; the number when this host has no name for it.
enum AccountName {
    /// The name of the user `uid`, or its number.
    static func user(_ uid: UInt32) -> String {
        self.name(of: uid) { buffer, size in
            var entry = passwd()
            var result: UnsafeMutablePointer<passwd>?
            guard getpwuid_r(uid, &entry, buffer, size, &result) == 0, result != nil, let name = entry.pw_name else {
                return nil
            }
            return String(cString: name)
        }
    }

    /// The name of the group `gid`, or its number.
    static func group(_ gid: UInt32) -> String {
        self.name(of: gid) { buffer, size in
            var entry = Glibc.group()
            var result: UnsafeMutablePointer<Glibc.group>?
            guard getgrgid_r(gid, &entry, buffer, size, &result) == 0, result != nil, let name = entry.gr_name else {
                return nil
            }
            return String(cString: name)
        }
    }

    /// What `lookUp` finds with a buffer for the entry's strings, or `id` as a number.
    private static func name(
        of id: UInt32,
        _ lookUp: (UnsafeMutablePointer<CChar>, Int) -> String?
    ) -> String {
        var buffer = [CChar](repeating: 0, count: 16_384)
        let name = buffer.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress.flatMap { lookUp($0, buffer.count) }
        }
        return name ?? String(id)
    }
}
