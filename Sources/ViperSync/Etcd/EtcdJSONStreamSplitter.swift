/// Splits a byte stream of JSON objects, one a line (the watch response of the etcd gateway), into complete objects,
/// whatever the chunk boundaries; a line that ends inside an object is an error.
struct EtcdJSONStreamSplitter {
    /// The largest object accepted; a longer one means the stream is not what it should be.
    let maximumObjectSize: Int
    /// Where the stream comes from, for messages: `127.0.0.1:2379`.
    let source: String

    private var buffer: [UInt8] = []
    private var scanned = 0
    private var depth = 0
    private var inString = false
    private var escaped = false
    private var objectStart: Int?

    /// Creates a splitter for the stream from `source`.
    init(maximumObjectSize: Int = 64 << 20, from source: String = "the gateway") {
        self.maximumObjectSize = maximumObjectSize
        self.source = source
    }

    /// Adds `chunk` and returns the objects it completes, in order.
    ///
    /// - Throws: ``RemoteSyncError`` when an object grows over the limit or the stream holds something else than objects.
    mutating func append(_ chunk: some Sequence<UInt8>) throws(RemoteSyncError) -> [[UInt8]] {
        self.buffer.append(contentsOf: chunk)
        var objects: [[UInt8]] = []
        while self.scanned < self.buffer.count {
            let byte = self.buffer[self.scanned]
            defer { self.scanned += 1 }
            if self.inString {
                if self.escaped {
                    self.escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    self.escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    self.inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""):
                guard self.depth > 0 else {
                    throw RemoteSyncError.attempt(
                        "the watch stream from \(self.source) holds a value that is not an object"
                    )
                }
                self.inString = true
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                if self.depth == 0 {
                    guard byte == UInt8(ascii: "{") else {
                        throw RemoteSyncError.attempt(
                            "the watch stream from \(self.source) holds a value that is not an object"
                        )
                    }
                    self.objectStart = self.scanned
                }
                self.depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                guard self.depth > 0 else {
                    throw RemoteSyncError.attempt(
                        "the watch stream from \(self.source) has an unbalanced '\(Character(Unicode.Scalar(byte)))'"
                    )
                }
                self.depth -= 1
                if self.depth == 0, let start = self.objectStart {
                    objects.append(Array(self.buffer[start...self.scanned]))
                    self.objectStart = nil
                }
            case UInt8(ascii: "\n"):
                // The gateway writes each message on one line: a line that ends inside one was cut off, and the
                // next message would be read as the rest of it.
                guard self.depth == 0 else {
                    throw RemoteSyncError.attempt(
                        "the watch stream from \(self.source) has a message cut off at the end of its line"
                    )
                }
            case UInt8(ascii: " "), UInt8(ascii: "\r"), UInt8(ascii: "\t"):
                break
            default:
                guard self.depth > 0 else {
                    throw RemoteSyncError.attempt(
                        "the watch stream from \(self.source) holds a value that is not an object"
                    )
                }
            }
        }
        // Drop what is consumed so the buffer only holds the object in progress.
        let keep = self.objectStart ?? self.buffer.count
        if keep > 0 {
            self.buffer.removeFirst(keep)
            self.scanned -= keep
            if self.objectStart != nil { self.objectStart = 0 }
        }
        if self.buffer.count > self.maximumObjectSize {
            throw RemoteSyncError.attempt(
                "watch message larger than \(ByteCountText.describe(self.maximumObjectSize)) from \(self.source)"
            )
        }
        return objects
    }
}
