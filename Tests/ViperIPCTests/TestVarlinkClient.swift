import NIOCore
import NIOPosix
import SettingsAPI
import Testing

/// A raw Varlink client for tests: sends bytes as given and reads NUL-terminated messages.
///
/// Every reply read through ``readReply()`` is checked to carry only the members Varlink allows.
struct TestVarlinkClient {
    private var messages: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator
    private let outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>
    private var pending: [UInt8] = []

    /// Connects to the socket at `path`, runs `body` with the client and closes the connection.
    static func withConnection<Result: Sendable>(
        to path: String,
        _ body: (inout TestVarlinkClient) async throws -> Result
    ) async throws -> Result {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(unixDomainSocketPath: path) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(
                        wrappingChannelSynchronously: channel,
                        configuration: .init(isOutboundHalfClosureEnabled: true)
                    )
                }
            }
        return try await channel.executeThenClose { inbound, outbound in
            var client = TestVarlinkClient(messages: inbound.makeAsyncIterator(), outbound: outbound)
            return try await body(&client)
        }
    }

    private init(
        messages: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator,
        outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>
    ) {
        self.messages = messages
        self.outbound = outbound
    }

    /// Sends `bytes` exactly as given, in one write.
    func send(bytes: [UInt8]) async throws {
        try await self.outbound.write(ByteBuffer(bytes: bytes))
    }

    /// Sends `text` exactly as given (add the NUL yourself), in one write.
    func send(raw text: String) async throws {
        try await self.send(bytes: Array(text.utf8))
    }

    /// Sends one message: `json` followed by a NUL.
    func send(_ json: String) async throws {
        try await self.send(raw: json + "\0")
    }

    /// Shuts down the sending side of the connection; replies can still be read.
    func finishSending() {
        self.outbound.finish()
    }

    /// Reads the next message; `nil` once the server closed the connection.
    mutating func readMessage() async throws -> JSONValue? {
        while true {
            if let terminator = self.pending.firstIndex(of: 0) {
                let message = Array(self.pending[..<terminator])
                self.pending.removeSubrange(...terminator)
                return try JSONValue(parsing: message)
            }
            let next: ByteBuffer?
            do {
                next = try await self.messages.next()
            } catch {
                next = nil  // e.g. a reset connection: as good as closed for these tests
            }
            guard var buffer = next else {
                #expect(self.pending.isEmpty, "connection closed in the middle of a message")
                return nil
            }
            self.pending += buffer.readBytes(length: buffer.readableBytes) ?? []
        }
    }

    /// Reads the next reply, which must exist and carry only `parameters`, `continues` and `error`.
    mutating func readReply(sourceLocation: SourceLocation = #_sourceLocation) async throws -> JSONValue {
        let reply = try #require(try await self.readMessage(), "expected a reply", sourceLocation: sourceLocation)
        let keys = Set(try #require(reply.objectValue, sourceLocation: sourceLocation).keys)
        #expect(keys.isSubset(of: ["parameters", "continues", "error"]), sourceLocation: sourceLocation)
        #expect(reply["parameters"]?.objectValue != nil, "parameters must be an object", sourceLocation: sourceLocation)
        return reply
    }

    /// Sends one call and reads its (single) reply.
    mutating func call(_ json: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> JSONValue {
        try await self.send(json)
        return try await self.readReply(sourceLocation: sourceLocation)
    }

    /// Expects the server to close the connection without sending anything more.
    mutating func expectClosed(sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let message = try await self.readMessage()
        #expect(message == nil, "expected the server to close the connection", sourceLocation: sourceLocation)
    }
}
