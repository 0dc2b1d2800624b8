import AsyncHTTPClient
import Glibc
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import ViperPOSIX

/// Words for the errors that reach the remote sources from the HTTP client and from below it, instead of their
/// descriptions (`HTTPClientError.redirectCycleDetected`, "I/O on closed channel", NIO's `IOError` "connection reset
/// (error set): Connection refused) (errno: 111)", `DNS error: SocketAddressError.UnknownHost: …`,
/// `handshakeFailed(NIOSSL.BoringSSLError.sslError(…))`, `NIOTooManyBytesError(maxBytes: Optional(…))`).
enum SocketErrorText {
    /// What went wrong, for the errors of sockets, channels, DNS, TLS, HTTP parsing and the HTTP client; `nil` for
    /// any other.
    static func describe(_ error: any Error) -> String? {
        switch error {
        case let error as HTTPClientError: Self.describe(client: error)
        case let error as ChannelError: Self.describe(channel: error)
        case let error as NIOConnectionError: Self.describe(connection: error)
        case let error as SocketAddressError.UnknownHost:
            "the host name \(error.host) does not resolve: \(error.errorDescription)"
        case let error as HTTPParserError: Self.describe(parser: error)
        case let error as NIOSSLError: Self.describe(tls: error)
        case let error as NIOTooManyBytesError:
            error.maxBytes.map { "the answer is larger than \(ByteCountText.describe($0))" }
                ?? "the answer is larger than the limit"
        case let error as IOError: Self.describe(system: error)
        default: nil
        }
    }

    private static func describe(system error: IOError) -> String {
        switch error.errnoCode {
        case ECONNREFUSED: "connection refused: nothing listens there (is the server up?)"
        case EHOSTUNREACH, ENETUNREACH: "no route to the host"
        case ECONNRESET: "the connection was reset by the server or something in between"
        default: SystemErrorText.describe(error.errnoCode)
        }
    }

    private static func describe(client error: HTTPClientError) -> String {
        switch error {
        case .remoteConnectionClosed:
            "the connection was closed by the server (or something in between) before it answered"
        case .redirectCycleDetected: "redirect cycle: the server redirects back to a URL already fetched"
        case .redirectLimitReached: "too many redirects"
        case .invalidURL: "not a URL the HTTP client can fetch"
        case .emptyHost: "the URL has no host"
        case .connectTimeout: "connect timed out"
        case .tlsHandshakeTimeout: "the TLS handshake timed out"
        case .readTimeout: "read timed out: the server sent nothing for too long"
        case .writeTimeout: "write timed out: the server took nothing for too long"
        case .deadlineExceeded: "no answer in time"
        case .cancelled: "cancelled"
        case .bodyLengthMismatch: "the answer's body is not as long as its Content-Length says"
        case .uncleanShutdown: "the TLS connection was cut without a TLS close: the answer may be incomplete"
        case .getConnectionFromPoolTimeout: "no connection to the server within the connect timeout"
        case .alreadyShutdown: "the HTTP client is shut down (the daemon is stopping)"
        default:
            // A case people hardly meet: its name, without the type's.
            "the HTTP client failed (\("\(error)".replacing("HTTPClientError.", with: "")))"
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

    /// Connecting failed: the name did not resolve, or every address refused or could not be reached.
    private static func describe(connection error: NIOConnectionError) -> String {
        if let dns = error.dnsAError ?? error.dnsAAAAError {
            if let dns = dns as? SocketAddressError.UnknownHost {
                return "the host name \(error.host) does not resolve: \(dns.errorDescription)"
            }
            return "the host name \(error.host) does not resolve"
        }
        if let first = error.connectionErrors.first {
            return Self.describe(first.error) ?? "cannot connect to \(error.host) port \(error.port)"
        }
        return "cannot connect to \(error.host) port \(error.port)"
    }

    /// The answer is not HTTP, or not well-formed HTTP.
    private static func describe(parser error: HTTPParserError) -> String {
        switch error {
        case .invalidEOFState, .closedConnection:
            "the connection was closed before the whole answer arrived"
        case .invalidConstant, .invalidVersion, .invalidStatus:
            "the answer is not HTTP: does something else listen on that port (a TLS port, another service)?"
        default:
            "the answer is not well-formed HTTP (\(error))"
        }
    }

    /// A TLS failure: BoringSSL's reason (`WRONG_VERSION_NUMBER`) in words.
    private static func describe(tls error: NIOSSLError) -> String {
        switch error {
        case .handshakeFailed(let cause):
            let text = "\(cause)"
            if text.contains("WRONG_VERSION_NUMBER") {
                return "TLS handshake failed: the server does not answer in TLS (is it a plain http:// port?)"
            }
            if text.contains("EOF during handshake") {
                return "TLS handshake failed: the connection was closed during the handshake"
            }
            guard let reason = Self.boringSSLReason(text) else { return "TLS handshake failed" }
            return "TLS handshake failed: \(reason)"
        case .uncleanShutdown:
            return "the TLS connection was cut without a TLS close: the answer may be incomplete"
        case .unableToValidateCertificate, .noCertificateToValidate, .cannotMatchULabel:
            return "the server's certificate could not be checked"
        default:
            return "TLS failed (\(error))"
        }
    }

    /// `certificate verify failed` for `error:1000007d:SSL routines:OPENSSL_internal:CERTIFICATE_VERIFY_FAILED at …`.
    private static func boringSSLReason(_ text: String) -> String? {
        guard let marker = text.range(of: "OPENSSL_internal:") else { return nil }
        let reason = text[marker.upperBound...].prefix { $0 == "_" || $0.isLetter || $0.isNumber }
        guard !reason.isEmpty else { return nil }
        return reason.replacing("_", with: " ").lowercased()
    }
}
