/// Who is asking: the peer's credentials from `SO_PEERCRED`.
public struct Caller: Sendable, Hashable {
    public var uid: UInt32
    public var gid: UInt32
    public var pid: Int32

    public init(uid: UInt32, gid: UInt32, pid: Int32) {
        self.uid = uid
        self.gid = gid
        self.pid = pid
    }
}
