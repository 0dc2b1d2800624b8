#if canImport(Glibc)
import Glibc
#endif

/// Why a benchmark could not run.
public enum BenchError: Error, CustomStringConvertible, Sendable {
    /// The server's socket could not be connected to.
    case cannotConnect(String, Int32)
    /// The socket path does not fit in a Unix socket address.
    case socketPathTooLong(String)
    /// The server closed a connection in the middle of the run.
    case closedByServer
    /// A system call failed.
    case system(String, Int32)
    /// An option's value cannot be used.
    case invalidOption(String)

    public var description: String {
        switch self {
        case .cannotConnect(let path, let code):
            return "cannot connect to \(path): \(String(cString: strerror(code)))"
        case .socketPathTooLong(let path):
            return "socket path is too long for a Unix socket address: \(path)"
        case .closedByServer:
            return "the server closed a connection during the run"
        case .system(let call, let code):
            return "\(call) failed: \(String(cString: strerror(code)))"
        case .invalidOption(let reason):
            return reason
        }
    }
}
