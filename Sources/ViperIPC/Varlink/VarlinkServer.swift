public import Logging
public import NIOCore
import NIOPosix
public import ServiceLifecycle
import ViperSettings

/// A Varlink server on a Unix socket, run as a swift-service-lifecycle `Service`.
///
/// It serves `org.varlink.service` and the given interfaces. Calls on one connection are answered strictly in
/// order, one after another; connections are served concurrently, all on one event loop, and a call runs there
/// from reading to replying without a thread switch. On graceful shutdown it stops accepting after a short grace
/// (``VarlinkConnectionActivity/shutdownGrace``, for connections already queued), answers the call each idle
/// connection had already sent, if any, then closes it, lets calls in progress finish (streaming calls are
/// cancelled), then returns and removes its socket file. On cancellation everything stops at once.
///
/// ```swift
/// let server = VarlinkServer(configuration: configuration, interfaces: [settings],
///                            eventLoopGroup: MultiThreadedEventLoopGroup.singleton, logger: logger)
/// // in a ServiceGroup, or:
/// async let serving: Void = server.run()
/// try await server.waitUntilListening()
/// ```
public final class VarlinkServer: Service, Sendable {
    let configuration: VarlinkServerConfiguration
    let interfaces: [String: any VarlinkInterface]
    let eventLoopGroup: any EventLoopGroup
    let logger: Logger
    let readiness = VarlinkServerReadiness()
    private let limiter: VarlinkConnectionLimiter
    /// Refusals waiting for a call, across this server's connections.
    private let refusalsWaiting: VarlinkConnectionRefusal.Waiting
    private let logLimiter = VarlinkLogLimiter()
    /// Gives the memory connections freed back to the system, a moment after they end.
    private let heapTrim = HeapTrimScheduler()
    /// Replies made on the spot, kept by the bytes of their calls for every connection.
    let immediateReplies = VarlinkImmediateReplyCache()

    /// Creates a server; it listens once ``run()`` is called.
    ///
    /// - Parameters:
    ///   - configuration: Where to listen, what `GetInfo` reports and the limits.
    ///   - interfaces: The interfaces to serve besides `org.varlink.service`. Their names must be distinct and
    ///     must not be `org.varlink.service` (a precondition).
    ///   - eventLoopGroup: The NIO event loops to run the sockets on, usually `MultiThreadedEventLoopGroup.singleton`.
    ///   - logger: Where the server logs; connection logs carry `client_uid`, `client_pid` and `client_gid`.
    public init(
        configuration: VarlinkServerConfiguration,
        interfaces: [any VarlinkInterface],
        eventLoopGroup: any EventLoopGroup,
        logger: Logger
    ) {
        let service = VarlinkServiceInterface(configuration: configuration, interfaces: interfaces)
        var byName: [String: any VarlinkInterface] = [service.name: service]
        for interface in interfaces {
            precondition(byName[interface.name] == nil, "Varlink interface \(interface.name) is served twice")
            byName[interface.name] = interface
        }
        self.configuration = configuration
        self.interfaces = byName
        self.eventLoopGroup = eventLoopGroup
        self.logger = logger
        self.limiter = VarlinkConnectionLimiter(
            maximumConnections: configuration.maximumConnections,
            maximumConnectionsPerUID: configuration.maximumConnectionsPerUID,
            reservedForRoot: configuration.reservedForRoot
        )
        self.refusalsWaiting = VarlinkConnectionRefusal.Waiting(maximum: configuration.refusalsWaiting)
    }

    /// Returns once the server accepts connections (at once if it already does).
    ///
    /// - Throws: ``VarlinkServerError/notListening`` if ``run()`` failed to listen or already returned;
    ///   `CancellationError` if the waiting task is cancelled.
    public func waitUntilListening() async throws {
        try await self.readiness.waitUntilListening()
    }

    /// Listens and serves until graceful shutdown or cancellation. A server runs once.
    ///
    /// - Throws: ``VarlinkServerError`` or a NIO error if it cannot listen; nothing once it listens.
    public func run() async throws {
        try self.readiness.start()
        defer { self.readiness.markStopped() }
        if case .connectedDescriptor(let descriptor) = self.configuration.endpoint {
            try await self.serveHandedOver(descriptor)
            return
        }
        var socketFile: VarlinkSocketFile?
        let listener: NIOAsyncChannel<AcceptedConnection, Never>
        do {
            (listener, socketFile) = try await self.listen()
        } catch {
            self.logger.error("Varlink server cannot listen", metadata: ["error": "\(error)"])
            throw error
        }
        defer { socketFile?.remove() }
        self.logger.info("Varlink server listening", metadata: ["endpoint": "\(self.endpointDescription)"])
        self.readiness.markListening()

        // The accept loop, and each connection's task with it, runs on the listener's event loop, which serves
        // every connection (see listen()): a call is read, handled and answered without a thread switch.
        let acceptExecutor = EventLoopTaskExecutor(eventLoop: listener.channel.eventLoop)
        await withGracefulShutdownHandler {
            await withTaskExecutorPreference(acceptExecutor) {
                await self.serve(listener)
            }
        } onGracefulShutdown: {
            // Connections already queued (connected, maybe with a call sent) are still accepted for a short grace,
            // each answered its call already sent and closed, rather than reset with the listener.
            let channel = listener.channel
            channel.eventLoop.scheduleTask(in: VarlinkConnectionActivity.shutdownGrace) {
                channel.setOption(ChannelOptions.autoRead, value: false).whenComplete { _ in
                    channel.eventLoop.execute { channel.close(promise: nil) }
                }
            }
        }
        self.logger.info("Varlink server stopped", metadata: ["endpoint": "\(self.endpointDescription)"])
    }

    var endpointDescription: String {
        switch self.configuration.endpoint {
        case .path(let path): path
        case .listeningDescriptor(let descriptor): "fd \(descriptor)"
        case .connectedDescriptor(let descriptor): "connected fd \(descriptor)"
        }
    }

    /// Binds the endpoint; returns the listening channel and, for a path, the socket file to remove at the end.
    private func listen() async throws -> (NIOAsyncChannel<AcceptedConnection, Never>, VarlinkSocketFile?) {
        // One loop accepts and serves every connection: a connection handed to another loop costs a wake-up
        // of that loop's thread, more than a short call takes. The work that blocks runs on a thread pool.
        guard let bootstrap = ServerBootstrap(validatingGroup: self.eventLoopGroup.next()) else {
            throw VarlinkServerError.unsupportedEventLoopGroup
        }
        let configured =
            bootstrap
            .serverChannelOption(.backlog, value: 256)
            .childChannelOption(.allowRemoteHalfClosure, value: true)
            .childChannelOption(.recvAllocator, value: Self.receiveAllocator)
        let initializer = self.connectionInitializer()
        switch self.configuration.endpoint {
        case .path(let path):
            // Bound under a staging name and renamed into place once open to everyone.
            var socketFile = try VarlinkSocketFile.prepare(path: path)
            let listener: NIOAsyncChannel<AcceptedConnection, Never>
            do {
                listener = try await configured.bind(
                    unixDomainSocketPath: socketFile.bindPath,
                    childChannelInitializer: initializer
                )
            } catch let error as IOError {
                // NIO's text names its own function, not the path: "bind(descriptor:ptr:bytes:): Permission denied".
                throw VarlinkServerError.socketPathFailure(path: path, operation: "bind", errno: error.errnoCode)
            }
            do {
                try socketFile.publish()
            } catch {
                try? await listener.channel.close()
                throw error
            }
            return (listener, socketFile)
        case .listeningDescriptor(let descriptor):
            let listener = try await configured.bind(descriptor, childChannelInitializer: initializer)
            return (listener, nil)
        case .connectedDescriptor:
            preconditionFailure("a connected socket is served by serveHandedOver(_:)")
        }
    }

    /// Accepts connections until the listener closes, then waits for the connections to end.
    private func serve(_ listener: NIOAsyncChannel<AcceptedConnection, Never>) async {
        await withDiscardingTaskGroup { group in
            do {
                try await listener.executeThenClose { connections in
                    for try await connection in connections {
                        // The task inherits the accept loop's executor preference: its channel is on that loop too.
                        group.addTask {
                            await self.serveConnection(connection)
                        }
                    }
                }
            } catch is CancellationError {
                // Cancelled: the server stops.
            } catch {
                self.logger.warning("Varlink listener failed", metadata: ["error": "\(error)"])
            }
        }
    }

    /// Checks the limits for a new connection, then serves it.
    func serveConnection(_ accepted: AcceptedConnection) async {
        // What is decided before serving is made apart: this task's frames are held while the connection lives.
        switch self.admit(accepted) {
        case .gone:
            await Self.close(accepted.channel)
        case .refused(let refusal):
            await refusal.run(on: accepted.channel)
        case .admitted(let connection):
            defer {
                self.limiter.release(uid: connection.peer.uid)
                self.heapTrim.connectionEnded(on: accepted.channel.channel.eventLoop)
            }
            await connection.run()
        }
    }

    /// What becomes of an accepted connection.
    private enum Admission {
        /// The client left before its credentials could be read.
        case gone
        /// Over a connection limit: refused with the limit's error.
        case refused(VarlinkConnectionRefusal)
        /// Served; its place under the limits is taken.
        case admitted(VarlinkConnection)
    }

    /// Reads the client's credentials and takes its place under the connection limits.
    private func admit(_ accepted: AcceptedConnection) -> Admission {
        let channel = accepted.channel
        let peer: Caller
        do {
            peer = try accepted.peer.get()
        } catch {
            // Usually a client that connected and left at once (a readiness probe); nothing to serve.
            self.logger.debug("Closing Varlink connection without peer credentials", metadata: ["error": "\(error)"])
            return .gone
        }
        var logger = self.logger
        // One merge rather than three subscript writes: a handler may re-render its metadata on every write.
        logger.handler.metadata.merge(
            ["client_uid": "\(peer.uid)", "client_pid": "\(peer.pid)", "client_gid": "\(peer.gid)"],
            uniquingKeysWith: { _, new in new }
        )
        if let refusal = self.limiter.acquire(uid: peer.uid) {
            let (limit, maximum, message) =
                switch refusal {
                case .tooManyConnections:
                    ("max-connections", self.configuration.maximumConnections, "too many connections")
                case .tooManyConnectionsForUID:
                    (
                        "max-connections-per-uid", self.configuration.maximumConnectionsPerUID,
                        "too many connections for this uid"
                    )
                }
            if var metadata = self.logLimiter.admit(.connectionRefused) {
                metadata["connection_limit"] = "\(limit)"
                metadata["connection_maximum"] = "\(maximum)"
                logger.notice("Refusing new Varlink connection: \(message)", metadata: metadata)
            }
            return .refused(
                VarlinkConnectionRefusal(
                    error: VarlinkError(
                        name: self.configuration.limitErrorName,
                        parameters: ["limit": .string(limit), "maximum": .int(Int64(maximum))]
                    ),
                    wait: TimeAmount(self.configuration.refusalWait),
                    waiting: self.refusalsWaiting,
                    logger: logger
                )
            )
        }
        logger.debug("Varlink connection accepted")
        return .admitted(
            VarlinkConnection(
                channel: channel,
                immediateReplies: accepted.immediateReplies,
                peer: peer,
                interfaces: self.interfaces,
                idleTimeout: self.configuration.idleTimeout,
                drainTimeout: self.configuration.drainTimeout,
                logLimiter: self.logLimiter,
                logger: logger
            )
        )
    }

    private static func close(_ channel: VarlinkConnectionChannel) async {
        await channel.close()
    }
}

/// A connection as the server accepts it: the channel and its peer's credentials, read on the event loop.
struct AcceptedConnection: Sendable {
    /// The connection.
    var channel: VarlinkConnectionChannel
    /// Who is connected, or why that could not be read.
    var peer: Result<Caller, any Error>
    /// Enables the calls answered on the event loop once the connection is served.
    var immediateReplies: VarlinkImmediateReplyControl
}
