import Glibc
import NIOCore
import ViperSettings

/// Reads the credentials of the peer of a connected Unix socket: `SO_PEERCRED` (pid, uid, gid) and
/// `SO_PEERGROUPS` (the supplementary groups), as the kernel recorded them when the peer connected. Authorization
/// is based on these, never on the group database: a process that dropped its supplementary groups has none here.
enum PeerCredentialsReader {
    /// Linux's `SO_PEERGROUPS` (since 4.13), which Glibc's Swift module does not export.
    static let peerGroupsOption: Int32 = 59

    /// Reads the peer's credentials from a channel. Called on the channel's event loop (as the server does, in its
    /// child channel initializer), the future is complete on return: no thread hop.
    ///
    /// Groups that cannot be read (more than 4096, or an old kernel) are left out: the caller then has only the
    /// rights of its uid and effective gid, never more.
    static func read(from channel: any Channel) -> EventLoopFuture<Caller> {
        guard let provider = channel as? any SocketOptionProvider else {
            return channel.eventLoop.makeFailedFuture(VarlinkServerError.peerCredentialsUnavailable)
        }
        // `struct ucred` is (pid_t, uid_t, gid_t); Glibc's Swift module does not export it.
        let credentials: EventLoopFuture<(Int32, UInt32, UInt32)> = provider.unsafeGetSocketOption(
            level: SocketOptionLevel(SOL_SOCKET),
            name: SocketOptionName(SO_PEERCRED)
        )
        return credentials.flatMap { pid, uid, gid in
            Self.groups(of: provider).map { groups in Caller(uid: uid, gid: gid, pid: pid, groups: groups) }
        }
    }

    /// The supplementary groups, or none when they cannot be read.
    ///
    /// NIO reads an option into a zeroed buffer of the value's size and does not say how much the kernel wrote, so
    /// the count is found from the kernel's answers: an empty buffer is enough only when there are no groups, a
    /// buffer that is too small fails with `ERANGE`. The kernel keeps the groups sorted, so a group 0 comes first and
    /// the zeros after the last group are the buffer's padding.
    private static func groups(of provider: any SocketOptionProvider) -> EventLoopFuture<[UInt32]> {
        let none: EventLoopFuture<Void> = Self.option(provider)
        return none.map { [] }.flatMapError { _ in
            let few: EventLoopFuture<InlineArray<32, UInt32>> = Self.option(provider)
            return few.map(Self.decode).flatMapError { _ in
                let many: EventLoopFuture<InlineArray<4096, UInt32>> = Self.option(provider)
                return many.map(Self.decode).recover { _ in [] }
            }
        }
    }

    private static func option<Buffer: Sendable>(_ provider: any SocketOptionProvider) -> EventLoopFuture<Buffer> {
        provider.unsafeGetSocketOption(
            level: SocketOptionLevel(SOL_SOCKET),
            name: SocketOptionName(Self.peerGroupsOption)
        )
    }

    /// The groups in a buffer the kernel filled with at least one group.
    private static func decode<let count: Int>(_ buffer: InlineArray<count, UInt32>) -> [UInt32] {
        var groups: [UInt32] = [buffer[0]]
        for index in 1..<count where buffer[index] != 0 { groups.append(buffer[index]) }
        return groups
    }
}
