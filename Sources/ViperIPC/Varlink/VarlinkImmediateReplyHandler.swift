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
    /// Messages read while the connection's task is far behind (``VarlinkImmediateReplyControl/backlogLimit``),
    /// kept as bytes and parsed as it catches up. NIO reads all that is left in the socket when the client closes,
    /// whatever the reads held back: parsed at once, a client that sent calls without reading and closed cost the
    /// daemon ~10 times their bytes at once (~2 MB per connection), which malloc then kept.
    private var held = CircularBuffer<ByteBuffer>()
    /// The end of reading (input closed, or a read error) that came after the messages held, passed on after them.
    private var heldEnd: HeldEnd?
    /// A read the pipeline asked for while messages were held.
    private var readHeld = false

    private enum HeldEnd {
        case inputClosed
        case error(any Error)
    }

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
        guard self.held.isEmpty, !self.control.backlogFull else {
            self.hold(message, context: context)
            return
        }
        self.handle(message, context: context)
    }

    func read(context: ChannelHandlerContext) {
        // Messages already read wait: nothing more is read until they are handed on.
        guard self.held.isEmpty else {
            self.readHeld = true
            return
        }
        context.read()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if !self.held.isEmpty, case .some(ChannelEvent.inputClosed) = event as? ChannelEvent {
            self.heldEnd = .inputClosed
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard self.held.isEmpty else {
            self.heldEnd = .error(error)
            return
        }
        context.fireErrorCaught(error)
    }

    func channelInactive(context: ChannelHandlerContext) {
        // Closed: no reply can reach the client any more. The task serves what it was handed until a call cannot be
        // answered (that call is run, its reply fails, the connection ends). Of the messages held, those it would
        // still have reached are handed on (a client may send `oneway` calls and close); the others are not parsed.
        var reachable = self.callsInFlight == 0
        while reachable, let message = self.held.popFirst() {
            let request = VarlinkRequest(message: message)
            if case .protocolViolation = request { reachable = false }
            if Self.expectsReply(request) { reachable = false }
            self.handOn(request, context: context)
        }
        self.held.removeAll()
        self.heldEnd = nil
        self.control.stopHolding()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.control.stopHolding()
    }

    /// Keeps `message` until the connection's task catches up.
    private func hold(_ message: ByteBuffer, context: ChannelHandlerContext) {
        if self.held.isEmpty {
            let handler = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            let eventLoop = context.eventLoop
            self.control.holdUntilCaughtUp {
                eventLoop.execute {
                    let (handler, context) = handler.value
                    handler.release(context: context)
                }
            }
        }
        self.held.append(message)
    }

    /// Hands on the messages held while the task has room, then the end of reading or a read that came after them.
    private func release(context: ChannelHandlerContext) {
        while !self.control.backlogFull, let message = self.held.popFirst() {
            self.handle(message, context: context)
        }
        guard self.held.isEmpty else { return }
        self.control.stopHolding()
        switch self.heldEnd {
        case .inputClosed: context.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
        case .error(let error): context.fireErrorCaught(error)
        case nil: break
        }
        self.heldEnd = nil
        if self.readHeld {
            self.readHeld = false
            context.read()
        }
    }

    /// Answers `message` on the spot, or hands it on parsed.
    private func handle(_ message: ByteBuffer, context: ChannelHandlerContext) {
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
        self.handOn(request ?? VarlinkRequest(message: message), context: context)
    }

    /// Hands `request` on to the connection's task.
    private func handOn(_ request: VarlinkRequest, context: ChannelHandlerContext) {
        if Self.expectsReply(request) { self.callsInFlight += 1 }
        self.control.handedOn()
        context.fireChannelRead(self.wrapInboundOut(request))
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
