import AsyncHTTPClient
import NIOCore
import NIOHTTP1
import NIOSSL
import Testing

@testable import ViperSync

/// The errors of the HTTP client and of NIO are told in words a user can act on, not as type and case names.
@Suite("Socket and client errors in words")
struct SocketErrorTextTests {
    @Test(
        "client and channel errors people meet are words, not HTTPClientError.x or 'I/O on closed channel'",
        arguments: [
            (HTTPClientError.redirectCycleDetected as any Error, "redirect cycle"),
            (HTTPClientError.redirectLimitReached, "too many redirects"),
            (HTTPClientError.invalidURL, "not a URL the HTTP client can fetch"),
            (HTTPClientError.remoteConnectionClosed, "the connection was closed by the server"),
            (ChannelError.ioOnClosedChannel, "the connection was closed by the server"),
            (ChannelError.eof, "the connection was closed by the server"),
            (HTTPClientError.bodyLengthMismatch, "the answer's body is not as long as its Content-Length says"),
            (HTTPClientError.readTimeout, "read timed out"),
            (HTTPClientError.writeAfterRequestSent, "the HTTP client failed (writeAfterRequestSent)"),
            (NIOTooManyBytesError(maxBytes: 64 << 20), "the answer is larger than 64 MiB"),
            (HTTPParserError.invalidConstant, "the answer is not HTTP: does something else listen on that port"),
            (HTTPParserError.invalidEOFState, "the connection was closed before the whole answer arrived"),
            (HTTPParserError.invalidChunkSize, "the answer is not well-formed HTTP ("),
            (NIOSSLError.uncleanShutdown, "the TLS connection was cut without a TLS close"),
            (NIOSSLError.handshakeFailed(.syscallError), "TLS handshake failed"),
        ]
    )
    func words(error: any Error, expected: String) throws {
        let text = try #require(SocketErrorText.describe(error))
        #expect(text.hasPrefix(expected), "\(text)")
        for typeName in [
            "HTTPClientError", "I/O on closed channel", "NIOTooManyBytesError", "HTTPParserError", "NIOSSL",
        ] {
            #expect(!text.contains(typeName), "\(text)")
        }
    }

    @Test("an etcd member that is stopping is named so, not only 'HTTP 408: grpc: the client connection is closing'")
    func stoppingMember() {
        let error = EtcdGatewayClient.failure("range", status: 408, message: "grpc: the client connection is closing")
        #expect(
            error.message == "range: the member is shutting down (HTTP 408: grpc: the client connection is closing)"
        )
        let other = EtcdGatewayClient.failure("range", status: 400, message: "etcdserver: mvcc: required revision")
        #expect(other.message == "range: HTTP 400: etcdserver: mvcc: required revision")
    }

    @Test("the etcd source tells a closed connection in words")
    func etcdDescribe() {
        #expect(EtcdRemoteSource.describe(ChannelError.ioOnClosedChannel).hasPrefix("the connection was closed"))
    }
}
