import NIOCore
import NIOPosix
import ViperSettings

/// A connection's pipeline (the frame decoder, the calls answered on the spot, the connection's channel), for the
/// connections accepted and for the one handed over by `exec:`-style activation.
extension VarlinkServer {
    /// Serves the one client whose connected socket was handed over, with the limits and calls of any other, then
    /// returns once it closes (or, on graceful shutdown, once its call in progress is answered).
    func serveHandedOver(_ descriptor: Int32) async throws {
        let loop = self.eventLoopGroup.next()
        let accepted: AcceptedConnection
        do {
            accepted = try await ClientBootstrap(group: loop)
                .channelOption(.allowRemoteHalfClosure, value: true)
                .channelOption(.recvAllocator, value: Self.receiveAllocator)
                .withConnectedSocket(descriptor, channelInitializer: self.connectionInitializer())
        } catch {
            self.logger.error(
                "Varlink server cannot serve the connected socket it was handed",
                metadata: ["endpoint": "\(self.endpointDescription)", "error": "\(error)"]
            )
            throw error
        }
        self.logger.info("Varlink server serving one client", metadata: ["endpoint": "\(self.endpointDescription)"])
        self.readiness.markListening()
        await withTaskExecutorPreference(EventLoopTaskExecutor(eventLoop: loop)) {
            await self.serveConnection(accepted)
        }
        self.logger.info(
            "Varlink server stopped: its client left",
            metadata: ["endpoint": "\(self.endpointDescription)"]
        )
    }

    /// Calls are small: connections start reading into 1 KiB (NIO's default is 2 KiB, growing to 64 KiB), so that
    /// many idle connections (watchers) cost less; a large message still grows the buffer.
    static let receiveAllocator = AdaptiveRecvByteBufferAllocator(minimum: 64, initial: 1024, maximum: 65_536)

    /// Sets up a connection's pipeline and reads its peer's credentials.
    func connectionInitializer() -> @Sendable (any Channel) -> EventLoopFuture<AcceptedConnection> {
        let maximumMessageSize = self.configuration.maximumMessageSize
        let interfaces = self.interfaces
        let immediateReplies = self.immediateReplies
        return { channel in
            // The peer's credentials are read here, on the channel's event loop, where that needs no thread hop
            // (from the connection's task it costs two thread switches, a large share of a short call).
            PeerCredentialsReader.read(from: channel)
                .map { Result<Caller, any Error>.success($0) }
                .recover { .failure($0) }
                .flatMapThrowing { peer in
                    let decoder = VarlinkFrameDecoder(maximumMessageSize: maximumMessageSize)
                    try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(decoder))
                    // Calls answered on the spot (a Get of a loaded module), once the connection is accepted.
                    let immediate = VarlinkImmediateReplyControl()
                    try channel.pipeline.syncOperations.addHandler(
                        VarlinkImmediateReplyHandler(
                            interfaces: interfaces,
                            control: immediate,
                            cache: immediateReplies
                        )
                    )
                    // Closed on deinit: a connection NIO accepts while the listener closes is dropped without
                    // ever reaching the accept loop.
                    let connection = VarlinkConnectionChannel(channel: channel)
                    try channel.pipeline.syncOperations.addHandler(connection.handler())
                    return AcceptedConnection(channel: connection, peer: peer, immediateReplies: immediate)
                }
        }
    }
}
