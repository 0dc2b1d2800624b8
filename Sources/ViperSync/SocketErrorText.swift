import AsyncHTTPClient
import Glibc
import NIOCore
import ViperPOSIX

/// Words for the errors that reach the remote sources from the HTTP client and from below it, instead of their
/// descriptions (`HTTPClientError.redirectCycleDetected`, "I/O on closed channel", NIO's `IOError` "connection reset
/// (error set): Connection refused) (errno: 111)").
enum SocketErrorText {
    /// What went wrong, for the errors of sockets, channels and the HTTP client people meet; `nil` for any other.
    static func describe(_ error: any Error) -> String? {
        if let error = error as? HTTPClientError { return Self.describe(client: error) }
        if let error = error as? ChannelError { return Self.describe(channel: error) }
        guard let error = error as? IOError else { return nil }
        switch error.errnoCode {
        case ECONNREFUSED: return "connection refused: nothing listens there (is the server up?)"
        case EHOSTUNREACH, ENETUNREACH: return "no route to the host"
        case ECONNRESET: return "the connection was reset by the server or something in between"
        default: return SystemErrorText.describe(error.errnoCode)
        }
    }

    private static func describe(client error: HTTPClientError) -> String? {
        switch error {
        case .remoteConnectionClosed:
            "the connection was closed by the server (or something in between) before it answered"
        case .redirectCycleDetected: "redirect cycle: the server redirects back to a URL already fetched"
        case .redirectLimitReached: "too many redirects"
        case .invalidURL: "not a URL the HTTP client can fetch"
        case .emptyHost: "the URL has no host"
        case .connectTimeout: "connect timed out"
        case .deadlineExceeded: "no answer in time"
        case .cancelled: "cancelled"
        default: nil
        }
    }

    private static func describe(channel error: ChannelError) -> String? {
        switch error {
        case .ioOnClosedChannel, .alreadyClosed, .eof, .outputClosed, .inputClosed:
            "the connection was closed by the server (or something in between)"
        case .connectTimeout: "connect timed out"
        default: nil
        }
    }
}
