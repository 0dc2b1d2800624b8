/// Where a ``VarlinkServer`` listens, what it reports about itself and the limits it enforces.
public struct VarlinkServerConfiguration: Sendable {
    /// Where the server listens.
    public enum Endpoint: Sendable, Hashable {
        /// Bind a Unix socket at this path: the parent directory is created if missing (mode 0755), a stale
        /// socket file is removed first, the socket is made accessible to everyone (mode 0666; authorization is by
        /// peer uid) and removed again when the server stops.
        case path(String)
        /// Serve an already bound and listening socket, e.g. one passed by systemd socket activation
        /// (`LISTEN_FDS`). Nothing is unlinked when the server stops.
        case listeningDescriptor(Int32)
        /// Serve the one client of an already connected stream socket, handed over by `exec:`-style activation
        /// (`varlinkctl call exec:…`, a socket unit with `Accept=yes`), then stop: ``VarlinkServer/run()`` returns
        /// when that connection ends.
        case connectedDescriptor(Int32)
    }

    /// Where the server listens.
    public var endpoint: Endpoint
    /// The vendor reported by `org.varlink.service.GetInfo`.
    public var vendor: String
    /// The product reported by `org.varlink.service.GetInfo`.
    public var product: String
    /// The version reported by `org.varlink.service.GetInfo`.
    public var version: String
    /// The URL reported by `org.varlink.service.GetInfo`.
    public var url: String
    /// The largest message (JSON text without its NUL terminator) a client may send, in bytes. A longer
    /// message, complete or not, closes the connection.
    public var maximumMessageSize: Int
    /// The most connections served at once; a connection beyond it gets the error ``limitErrorName`` as the reply to
    /// its first call, then is closed.
    public var maximumConnections: Int
    /// The most connections served at once for one peer uid; a connection beyond it is refused as for
    /// ``maximumConnections``.
    public var maximumConnectionsPerUID: Int
    /// Connections uid 0 may hold beyond ``maximumConnections``: an administrator can still reach a server that
    /// other users' connections filled (the per-uid maximum applies to root too).
    public var reservedForRoot: Int
    /// The error a refused connection gets, with the parameters `limit` (`max-connections` or
    /// `max-connections-per-uid`) and `maximum`; declare it in the served interface.
    public var limitErrorName: String
    /// How long a connection may stay without a call in progress before it is closed; `nil` for no limit.
    public var idleTimeout: Duration?
    /// How long a refused connection (over a limit) has to send its first call, which gets the limit error, before
    /// it is closed without a reply.
    public var refusalWait: Duration
    /// How many refused connections may wait for their first call at once; past that, a refused connection gets the
    /// limit error as soon as it is accepted and is closed (see `VarlinkConnectionRefusal`).
    public var refusalsWaiting: Int = 64
    /// How long a graceful shutdown waits for a call in progress (one whose client does not read its reply never
    /// ends) before it closes the connection.
    public var drainTimeout: Duration

    /// Creates a configuration.
    public init(
        endpoint: Endpoint,
        vendor: String,
        product: String,
        version: String,
        url: String,
        maximumMessageSize: Int = 1 << 20,
        maximumConnections: Int = 4096,
        maximumConnectionsPerUID: Int = 128,
        idleTimeout: Duration? = nil,
        refusalWait: Duration = .seconds(2),
        drainTimeout: Duration = .seconds(5),
        reservedForRoot: Int = 8,
        limitErrorName: String
    ) {
        self.endpoint = endpoint
        self.vendor = vendor
        self.product = product
        self.version = version
        self.url = url
        self.maximumMessageSize = maximumMessageSize
        self.maximumConnections = maximumConnections
        self.maximumConnectionsPerUID = maximumConnectionsPerUID
        self.idleTimeout = idleTimeout
        self.refusalWait = refusalWait
        self.drainTimeout = drainTimeout
        self.reservedForRoot = reservedForRoot
        self.limitErrorName = limitErrorName
    }
}
