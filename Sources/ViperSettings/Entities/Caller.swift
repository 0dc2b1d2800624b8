/// Who is asking: the credentials the kernel reports for the peer of the connection (`SO_PEERCRED` and
/// `SO_PEERGROUPS`), as they were when the peer connected.
public struct Caller: Sendable, Hashable {
    /// The peer's process id.
    public var pid: Int32
    /// The peer's effective user id.
    public var uid: UInt32
    /// The peer's effective group id.
    public var gid: UInt32
    /// The peer's supplementary group ids, as the kernel reports them (not read from /etc/group): a process that
    /// dropped its supplementary groups has none.
    public var groups: [UInt32]

    /// Creates credentials from their parts.
    public init(uid: UInt32, gid: UInt32, pid: Int32, groups: [UInt32] = []) {
        self.uid = uid
        self.gid = gid
        self.pid = pid
        self.groups = groups
    }

    /// The effective group id and the supplementary ones, without repeats, in that order.
    public var allGroups: [UInt32] {
        var seen: Set<UInt32> = []
        return ([self.gid] + self.groups).filter { seen.insert($0).inserted }
    }

    /// Whether the caller may write a module with these writers: root, a user named in `users` (by name, or by
    /// uid for an entry that is a number), or a caller whose effective or supplementary group is in `groups` (by
    /// name, or by gid).
    public func mayWrite(_ writers: Writers, accounts: any AccountDirectory) -> Bool {
        if self.uid == 0 { return true }
        if !writers.users.isEmpty {
            let name = accounts.userName(uid: self.uid)
            if writers.users.contains(where: { Writers.entry($0, names: self.uid, called: name) }) { return true }
        }
        guard !writers.groups.isEmpty else { return false }
        return self.allGroups.contains { gid in
            let name = accounts.groupName(gid: gid)
            return writers.groups.contains { Writers.entry($0, names: gid, called: name) }
        }
    }
}
