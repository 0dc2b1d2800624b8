import NIOCore

/// The last handler of a served connection's pipeline: hands the parsed calls to its ``VarlinkConnectionChannel``,
/// holds reads back while enough calls wait, and reports the end of reading, writability and the close.
///
/// It refers to its connection weakly: a connection dropped before it is served is deinitialized, which closes it.
final class VarlinkConnectionHandler: ChannelDuplexHandler {
    typealias InboundIn = VarlinkRequest
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private weak var connection: VarlinkConnectionChannel?

    init(connection: VarlinkConnectionChannel) {
        self.connection = connection
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        self.connection?.received(self.unwrapInboundIn(data))
    }

    func read(context: ChannelHandlerContext) {
        if self.connection?.mayRead() ?? true {
            context.read()
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .some(ChannelEvent.inputClosed) = event as? ChannelEvent {
            self.connection?.readingEnded(.success(()))
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // Reading cannot go on (a message over the limit, a failed read): the task learns why once it has served
        // the calls before, and closes the connection.
        self.connection?.readingEnded(.failure(error))
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        self.connection?.writabilityChanged(context.channel.isWritable)
        context.fireChannelWritabilityChanged()
    }

    func channelInactive(context: ChannelHandlerContext) {
        self.connection?.becameInactive()
        context.fireChannelInactive()
    }
}
