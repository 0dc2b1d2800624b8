import NIOCore
import NIOEmbedded
import Testing

@testable import ViperIPC

/// A client that does not read its replies is not read either: the calls it sends meanwhile stay in its socket,
/// not in the daemon (120 such connections sending 1 MiB calls held ~1 GB before).
@Suite("Reading a connection's calls")
struct VarlinkConnectionReadHoldTests {
    /// Counts the reads that reach the socket.
    final class ReadCounter: ChannelOutboundHandler, @unchecked Sendable {
        typealias OutboundIn = ByteBuffer
        var reads = 0

        func read(context: ChannelHandlerContext) {
            self.reads += 1
            context.read()
        }
    }

    private static func served() throws -> (EmbeddedChannel, VarlinkConnectionChannel, ReadCounter) {
        let channel = EmbeddedChannel()
        let counter = ReadCounter()
        let connection = VarlinkConnectionChannel(channel: channel)
        try channel.pipeline.syncOperations.addHandler(counter)
        try channel.pipeline.syncOperations.addHandler(connection.handler())
        try channel.connect(to: SocketAddress(unixDomainSocketPath: "/tmp/read-hold-test")).wait()
        return (channel, connection, counter)
    }

    private static func setWritable(_ writable: Bool, _ channel: EmbeddedChannel) {
        channel.isWritable = writable
        channel.pipeline.fireChannelWritabilityChanged()
    }

    @Test("no read while the client leaves its replies unread; reading resumes once it reads them")
    func heldWhileNotWritable() throws {
        let (channel, connection, counter) = try Self.served()
        defer { _ = try? channel.finish() }
        channel.read()
        #expect(counter.reads == 1)
        Self.setWritable(false, channel)
        channel.read()
        channel.read()
        #expect(counter.reads == 1, "read while the replies pile up")
        Self.setWritable(true, channel)
        #expect(counter.reads == 2, "the read held back is made once the client reads")
        channel.read()
        #expect(counter.reads == 3)
        withExtendedLifetime(connection) {}
    }

    @Test("calls waiting hold reading back too, whatever the writability")
    func heldWhileCallsWait() throws {
        let (channel, connection, counter) = try Self.served()
        defer { _ = try? channel.finish() }
        for index in 0..<VarlinkConnectionChannel.highWatermark {
            try channel.writeInbound(VarlinkRequest(message: ByteBuffer(string: #"{"method":"a.b.M\#(index)"}"#)))
        }
        channel.read()
        #expect(counter.reads == 0)
        // Writable again does not resume reading while the task has not taken the calls.
        Self.setWritable(false, channel)
        Self.setWritable(true, channel)
        #expect(counter.reads == 0)
        withExtendedLifetime(connection) {}
    }
}
