public import Logging

/// The daemon's settings after the configuration file and the command line were read; flags win.
public struct DaemonConfiguration: Sendable, Equatable {
    /// Where module schemas are read from.
    public var modulesDirectory: String
    /// Where state files are written.
    public var stateDirectory: String
    /// The socket path to bind, when not socket-activated.
    public var socketPath: String
    /// The lowest level that is logged.
    public var logLevel: Logger.Level
    /// The largest message a client may send, in bytes.
    public var maximumMessageSize: Int
    /// How many connections one uid may hold at once.
    public var maximumConnectionsPerUID: Int
    /// How many connections all clients may hold at once; kept below the descriptor limit at start.
    public var maximumConnections: Int = 1000
    /// How long a connection may stay without a call before it is closed; `nil` for no limit.
    public var idleTimeout: Duration? = .seconds(60)
    /// The largest `string` or `strings` value a client or the remote may set, in bytes of UTF-8.
    public var maximumValueSize: Int = 64 * 1024
    /// The remote source (`https://…`, `http://…` or `etcd://host:port[,…]/PREFIX`); `nil`: sync is off.
    public var remote: String?
    /// How often an HTTP(S) remote is polled.
    public var remotePollInterval: Duration = .seconds(60)
    /// The longest a whole HTTP(S) exchange (connect, headers and body) may take.
    public var remoteTimeout: Duration = .seconds(30)
    /// A `sync` asked for this soon after the last one ended shares its outcome instead of asking the remote again.
    public var syncMinimumInterval: Duration = .seconds(1)
    /// A file holding a bearer token for an HTTP(S) remote (works with systemd's LoadCredential=).
    public var remoteTokenFile: String?
    /// A file of CA certificates (PEM) to trust for an HTTPS remote.
    public var remoteCAFile: String?

    public init(
        modulesDirectory: String,
        stateDirectory: String,
        socketPath: String,
        logLevel: Logger.Level = .info,
        maximumMessageSize: Int = 1 << 20,
        maximumConnectionsPerUID: Int = 128
    ) {
        self.modulesDirectory = modulesDirectory
        self.stateDirectory = stateDirectory
        self.socketPath = socketPath
        self.logLevel = logLevel
        self.maximumMessageSize = maximumMessageSize
        self.maximumConnectionsPerUID = maximumConnectionsPerUID
    }
}
