import NIOCore
import NIOEmbedded
import Testing

@testable import ViperIPC

/// What a connection's task has not served yet stays bounded: messages read beyond its backlog are kept as bytes and
/// handed on as it catches up (NIO reads all that is left in the socket when a client closes, whatever the reads
/// held back; parsed at once, that cost the daemon ~2 MB per connection).
@Suite("A connection's backlog of calls")
struct VarlinkBacklogTests {
    /// Records what reaches the connection's handler: the methods of the calls, in order, and the end of input.
    final class Recorder: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = VarlinkRequest
        var methods: [String] = []
        var inputClosedAfter: Int?

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            if case .call(let call) = self.unwrapInboundIn(data) { self.methods.append(call.method) }
        }

        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            if case .some(ChannelEvent.inputClosed) = event as? ChannelEvent {
                self.inputClosedAfter = self.methods.count
            }
        }
    }

    private static func channel() throws -> (EmbeddedChannel, VarlinkImmediateReplyControl, Recorder) {
        let control = VarlinkImmediateReplyControl()
        let recorder = Recorder()
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(
            VarlinkImmediateReplyHandler(interfaces: [:], control: control, cache: VarlinkImmediateReplyCache())
        )
        try channel.pipeline.syncOperations.addHandler(recorder)
        try channel.connect(to: SocketAddress(unixDomainSocketPath: "/tmp/backlog-test")).wait()
        return (channel, control, recorder)
    }

    private static func call(_ index: Int, oneway: Bool = false) -> ByteBuffer {
        ByteBuffer(string: #"{"method": "org.example.test.M\#(index)"\#(oneway ? #", "oneway": true"# : "")}"#)
    }

    @Test("messages beyond the backlog are handed on as the task finishes others, then the end of input")
    func heldUntilTheTaskCatchesUp() throws {
        let (channel, control, recorder) = try Self.channel()
        for index in 0..<100 { try channel.writeInbound(Self.call(index)) }
        channel.pipeline.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
        #expect(recorder.methods.count == VarlinkImmediateReplyControl.backlogLimit)
        #expect(recorder.inputClosedAfter == nil, "the end comes after the calls held")
        var finished = 0
        while finished < 100 {
            control.finished()
            finished += 1
            channel.embeddedEventLoop.run()
            #expect(recorder.methods.count - finished <= VarlinkImmediateReplyControl.backlogLimit)
        }
        #expect(recorder.methods == (0..<100).map { "org.example.test.M\($0)" }, "all of them, in order")
        #expect(recorder.inputClosedAfter == 100)
        _ = try? channel.finish()
    }

    @Test("at close, the held calls the task would still reach are handed on: up to the first that expects a reply")
    func closeRunsWhatTheTaskWouldReach() throws {
        let (channel, _, recorder) = try Self.channel()
        let limit = VarlinkImmediateReplyControl.backlogLimit
        for index in 0..<limit { try channel.writeInbound(Self.call(index, oneway: true)) }
        try channel.writeInbound(Self.call(100, oneway: true))
        try channel.writeInbound(Self.call(101, oneway: false))
        try channel.writeInbound(Self.call(102, oneway: true))
        #expect(recorder.methods.count == limit)
        channel.pipeline.fireChannelInactive()
        #expect(recorder.methods.suffix(2) == ["org.example.test.M100", "org.example.test.M101"])
        #expect(recorder.methods.count == limit + 2, "not the oneway call after one whose reply cannot be sent")
    }

    @Test("at close, nothing held is run when a call handed on already expects a reply")
    func closeAfterACallExpectingAReply() throws {
        let (channel, _, recorder) = try Self.channel()
        let limit = VarlinkImmediateReplyControl.backlogLimit
        try channel.writeInbound(Self.call(0, oneway: false))
        for index in 1..<(limit + 5) { try channel.writeInbound(Self.call(index, oneway: true)) }
        #expect(recorder.methods.count == limit)
        channel.pipeline.fireChannelInactive()
        #expect(recorder.methods.count == limit)
    }
}
