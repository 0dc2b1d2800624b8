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

    /// Whether the caller may write a module with these writers: root, the user the daemon runs as (see
    /// ``AccountDirectory/serviceUID``), a user named in `users`, or a caller whose effective or supplementary group
    /// is in `groups`. An entry that is a number is an id; a name is looked up and compared by its id, as systemd's
    /// `User=` and `chown` resolve names, so a second name of the same uid names it too.
    public func mayWrite(_ writers: Writers, accounts: any AccountDirectory) -> Bool {
        if self.uid == 0 || self.uid == accounts.serviceUID { return true }
        if writers.users.contains(where: { Writers.id(of: $0, resolving: accounts.userID(named:)) == self.uid }) {
            return true
        }
        guard !writers.groups.isEmpty else { return false }
        let groups = self.allGroups
        return writers.groups.contains { entry in
            Writers.id(of: entry, resolving: accounts.groupID(named:)).map(groups.contains) ?? false
        }
    }
}
