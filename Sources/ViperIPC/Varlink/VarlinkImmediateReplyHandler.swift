import NIOCore

/// Answers, on the event loop, the calls an interface can answer without waiting (``VarlinkInterface/replyNow(to:)``:
/// a `Get` of a loaded module), and hands every other message, parsed, to the connection's task.
///
/// Replies keep the order of calls: a call is answered here only when the connection's task has finished every
/// message handed to it (`oneway` calls included: a `oneway` set must be done before a later get reads) and every
/// last reply it owes has passed this handler (the handler counts the calls it hands on that expect a reply, and
/// the last replies written back), and the task waits for its next call. A client that does not read its replies is not answered here: the task
/// answers it, waiting until it reads, and stops reading its calls meanwhile, so nothing piles up.
final class VarlinkImmediateReplyHandler: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = VarlinkRequest
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let interfaces: [String: any VarlinkInterface]
    private let control: VarlinkImmediateReplyControl
    private let cache: VarlinkImmediateReplyCache
    /// Calls handed on whose last reply has not been written yet.
    private var callsInFlight = 0

    init(
        interfaces: [String: any VarlinkInterface],
        control: VarlinkImmediateReplyControl,
        cache: VarlinkImmediateReplyCache
    ) {
        self.interfaces = interfaces
        self.control = control
        self.cache = cache
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let message = self.unwrapInboundIn(data)
        var request: VarlinkRequest?
        // Only when nothing is pending before it (no reply owed, the connection's task waiting for a call), and
        // while the client reads its replies: one that does not is answered by the task, which waits for it.
        if self.callsInFlight == 0, self.control.nothingPending, context.channel.isWritable,
            let activity = self.control.enabledActivity
        {
            let reply = self.cache.reply(to: message) ?? self.replyNow(to: message, parsed: &request)
            if let reply, activity.beginImmediateCall() {
                context.writeAndFlush(self.wrapOutboundOut(reply), promise: nil)
                activity.endImmediateCall()
                return
            }
        }
        // Parsed once: the connection's task gets the call as parsed here.
        let parsed = request ?? VarlinkRequest(message: message)
        if Self.expectsReply(parsed) { self.callsInFlight += 1 }
        self.control.handedOn()
        context.fireChannelRead(self.wrapInboundOut(parsed))
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if self.callsInFlight > 0 && !Self.isContinuing(self.unwrapOutboundIn(data)) {
            self.callsInFlight -= 1
        }
        context.write(data, promise: promise)
    }

    /// The whole reply frame when the call's interface answers it on the spot, kept for the same bytes when the
    /// interface has a generation; `request` is set to the parsed message.
    private func replyNow(to message: ByteBuffer, parsed request: inout VarlinkRequest?) -> ByteBuffer? {
        let parsed = VarlinkRequest(message: message)
        request = parsed
        guard case .call(let call) = parsed, !call.more, !call.oneway,
            let interface = self.interfaces[call.interfaceName], interface.methods.contains(call.methodName)
        else { return nil }
        // Read before the reply is made: the reply is never older than the generation it is kept under (at worst
        // newer, and then it is made again).
        let generation = interface.replyNowGeneration
        guard let parameters = interface.replyNow(to: call) else { return nil }
        let reply = VarlinkReply.frame(encodedParameters: parameters)
        if let generation { self.cache.keep(reply, to: message, interface: interface, generation: generation) }
        return reply
    }

    /// Whether the connection's task will write a last reply for `request` (a protocol violation closes the
    /// connection instead; a `oneway` call gets none).
    private static func expectsReply(_ request: VarlinkRequest) -> Bool {
        switch request {
        case .call(let call): !call.oneway
        case .invalid(_, let oneway, _): !oneway
        case .protocolViolation: false
        }
    }

    /// Whether a reply frame has `continues: true` (members are written sorted, so it comes first).
    private static func isContinuing(_ frame: ByteBuffer) -> Bool {
        frame.readableBytesView.starts(with: #"{"continues":true"#.utf8)
    }
}
