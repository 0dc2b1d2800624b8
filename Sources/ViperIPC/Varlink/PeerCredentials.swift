import Glibc
import NIOCore

/// Credentials of the connected peer, read with `SO_PEERCRED` when the connection was accepted.
///
/// They describe the process that opened the connection (at `connect(2)` time), which is what
/// authorization decisions are based on.
public struct PeerCredentials: Sendable, Hashable {
    /// The peer's process id.
    public var pid: Int32
    /// The peer's effective user id.
    public var uid: UInt32
    /// The peer's effective group id.
    public var gid: UInt32

    /// Creates credentials from their parts.
    public init(pid: Int32, uid: UInt32, gid: UInt32) {
        self.pid = pid
        self.uid = uid
        self.gid = gid
    }
}

extension PeerCredentials {
    /// Reads the credentials of the peer of a connected Unix domain socket channel.
    ///
    /// Called on the channel's event loop (as the server does, in its child channel initializer), the future
    /// is complete on return: no thread hop.
    static func read(from channel: any Channel) -> EventLoopFuture<PeerCredentials> {
        guard let provider = channel as? any SocketOptionProvider else {
            return channel.eventLoop.makeFailedFuture(VarlinkServerError.peerCredentialsUnavailable)
        }
        let raw: EventLoopFuture<RawPeerCredentials> = provider.unsafeGetSocketOption(
            level: SocketOptionLevel(SOL_SOCKET),
            name: SocketOptionName(SO_PEERCRED)
        )
        return raw.map { PeerCredentials(pid: $0.pid, uid: $0.uid, gid: $0.gid) }
    }
}

/// The layout of Linux's `struct ucred` (`pid_t`, `uid_t`, `gid_t`), which Glibc's Swift module does not export.
private struct RawPeerCredentials: Sendable {
    var pid: Int32
    var uid: UInt32
    var gid: UInt32
}
