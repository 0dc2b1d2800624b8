/// The wire protocol a benchmark speaks: Varlink (`io.viper.settings`) or RESP (Redis).
public enum BenchProtocol: String, CaseIterable, Sendable {
    /// Varlink over a Unix socket: NUL-terminated JSON messages, `io.viper.settings.Get` and `Set`.
    case varlink
    /// The Redis serialization protocol: `GET key` and `SET key value`, as redis-cli sends them.
    case resp

    /// The bytes of one request: a get of `key`, or a set of `key` to the integer `value`.
    public func request(_ operation: BenchOperation, key: String, value: Int) -> [UInt8] {
        switch (self, operation) {
        case (.varlink, .get):
            return Array(#"{"method":"io.viper.settings.Get","parameters":{"key":"\#(key)"}}"#.utf8) + [0]
        case (.varlink, .set):
            return Array(#"{"method":"io.viper.settings.Set","parameters":{"key":"\#(key)","value":\#(value)}}"#.utf8)
                + [0]
        case (.resp, .get):
            return Self.command(["GET", key])
        case (.resp, .set):
            return Self.command(["SET", key, String(value)])
        }
    }

    /// A RESP command: an array of bulk strings.
    private static func command(_ words: [String]) -> [UInt8] {
        var text = "*\(words.count)\r\n"
        for word in words {
            text += "$\(word.utf8.count)\r\n\(word)\r\n"
        }
        return Array(text.utf8)
    }

    /// Where the first whole reply in `bytes` ends (the index after it), or `nil` while it is incomplete.
    public func replyEnd(in bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        switch self {
        case .varlink:
            return bytes.firstIndex(of: 0).map { $0 + 1 }
        case .resp:
            return RESPReplyScanner.end(of: bytes, from: 0)
        }
    }

    /// Whether a whole reply reports a failure: a Varlink error reply or a RESP error.
    public func isError(_ reply: UnsafeBufferPointer<UInt8>) -> Bool {
        switch self {
        case .varlink:
            // Replies are written with sorted members: an error reply starts with its `error` member.
            let prefix = Array(#"{"error""#.utf8)
            return reply.count >= prefix.count && zip(reply, prefix).allSatisfy { $0 == $1 }
        case .resp:
            return reply.first == UInt8(ascii: "-")
        }
    }
}

/// One operation of the workload.
public enum BenchOperation: String, CaseIterable, Sendable {
    /// Read a value.
    case get
    /// Write a new value (each set stores a value different from the one before it).
    case set
}
