import Glibc
import ViperPOSIX

/// Errors of the Varlink server: failures to start serving, and misuse of a ``VarlinkReplySink``.
public enum VarlinkServerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Something that is not a socket exists at the socket path; it is left alone.
    case socketPathOccupied(path: String)
    /// Another server is accepting connections on the socket at this path.
    case socketInUse(path: String)
    /// The socket path does not fit a Unix socket address (107 bytes at most).
    case socketPathTooLong(path: String)
    /// Preparing the socket path failed: `operation` (e.g. `mkdir`) on `path` set `errno`.
    case socketPathFailure(path: String, operation: String, errno: Int32)
    /// The socket's directory lets another user replace what is in it (`reason` says how): a server running as
    /// one user does not publish its socket where another could swap it.
    case socketDirectoryUnsafe(path: String, reason: String)
    /// The event loop group cannot run NIO's POSIX sockets; pass `MultiThreadedEventLoopGroup`.
    case unsupportedEventLoopGroup
    /// ``VarlinkServer/run()`` was called on a server that already ran or is running.
    case alreadyStarted
    /// The server stopped (or failed to start) before it was listening.
    case notListening
    /// The peer's credentials could not be read from the connection.
    case peerCredentialsUnavailable
    /// A handler replied with parameters that are not an object.
    case replyParametersNotAnObject
    /// A handler replied after the last reply of its call, or after its call ended.
    case replyAfterLastReply

    public var description: String {
        switch self {
        case .socketPathOccupied(let path):
            "\(path) exists and is not a socket; refusing to replace it"
        case .socketInUse(let path):
            "another server is listening on \(path)"
        case .socketPathTooLong(let path):
            "socket path \(path) is longer than a Unix socket address allows"
        case .socketPathFailure(let path, let operation, let errno):
            "\(operation) \(path) failed: \(SystemErrorText.describe(errno)) (errno \(errno))"
        case .socketDirectoryUnsafe(let path, let reason):
            "the socket's directory \(path) \(reason): another user could replace the socket there; use a"
                + " directory only this user (or root) may write, such as /run/viper-settings"
        case .unsupportedEventLoopGroup:
            "the event loop group does not support POSIX sockets"
        case .alreadyStarted:
            "the Varlink server was already started"
        case .notListening:
            "the Varlink server is not listening"
        case .peerCredentialsUnavailable:
            "the peer credentials of the connection are unavailable"
        case .replyParametersNotAnObject:
            "Varlink reply parameters must be an object"
        case .replyAfterLastReply:
            "reply after the last reply of a Varlink call"
        }
    }
}
