/// What one benchmark run does: which server, how many connections, which keys, how many sets, how long.
public struct BenchWorkload: Sendable {
    /// The server's Unix socket.
    public var socketPath: String
    /// The protocol the server speaks.
    public var wire: BenchProtocol
    /// The number of connections, each on its own thread, each with one request in flight.
    public var connections: Int
    /// The share of operations that are sets, in percent (0 to 100); the others are gets.
    public var setPercent: Int
    /// The keys operated on; each operation picks one at random.
    public var keys: [String]
    /// Sets store integers from 1 to this bound, each a different value from the set before it.
    public var maximumValue: Int
    /// How long operations are recorded.
    public var duration: Duration
    /// How long operations run before recording starts.
    public var warmup: Duration

    /// A workload; see the properties.
    public init(
        socketPath: String,
        wire: BenchProtocol,
        connections: Int,
        setPercent: Int,
        keys: [String],
        maximumValue: Int,
        duration: Duration,
        warmup: Duration
    ) {
        self.socketPath = socketPath
        self.wire = wire
        self.connections = connections
        self.setPercent = setPercent
        self.keys = keys
        self.maximumValue = maximumValue
        self.duration = duration
        self.warmup = warmup
    }

    /// Checks that the workload can run; the error names the option that is wrong.
    public func validate() throws(BenchError) {
        guard self.connections >= 1 else { throw .invalidOption("--connections must be at least 1") }
        guard (0...100).contains(self.setPercent) else { throw .invalidOption("--sets must be from 0 to 100") }
        guard !self.keys.isEmpty else { throw .invalidOption("no keys: give --key or --keys-file") }
        // Keys go into requests as they are: a character that JSON or RESP would need to escape is refused.
        if let bad = self.keys.first(where: { key in
            key.isEmpty || key.unicodeScalars.contains { $0.value < 0x21 || $0 == "\"" || $0 == "\\" }
        }) {
            throw .invalidOption("invalid key \(bad.debugDescription): a key has no spaces, quotes or backslashes")
        }
        guard self.maximumValue >= 2 else { throw .invalidOption("--max-value must be at least 2") }
        guard self.duration > .zero else { throw .invalidOption("--duration must be more than 0") }
    }
}
