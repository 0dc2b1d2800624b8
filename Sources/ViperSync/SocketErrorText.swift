import Glibc
import NIOCore
import ViperPOSIX

/// Words for the socket errors that reach the remote sources from below the HTTP client, instead of NIO's
/// `IOError` description ("connection reset (error set): Connection refused) (errno: 111)").
enum SocketErrorText {
    /// What went wrong, for an `IOError`; `nil` for any other error.
    static func describe(_ error: any Error) -> String? {
        guard let error = error as? IOError else { return nil }
        switch error.errnoCode {
        case ECONNREFUSED: return "connection refused: nothing listens there (is the server up?)"
        case EHOSTUNREACH, ENETUNREACH: return "no route to the host"
        default: return SystemErrorText.describe(error.errnoCode)
        }
    }
}
