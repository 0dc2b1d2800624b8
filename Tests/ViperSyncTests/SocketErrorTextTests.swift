import AsyncHTTPClient
import NIOCore
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
        ]
    )
    func words(error: any Error, expected: String) throws {
        let text = try #require(SocketErrorText.describe(error))
        #expect(text.hasPrefix(expected), "\(text)")
        #expect(!text.contains("HTTPClientError") && !text.contains("I/O on closed channel"))
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
