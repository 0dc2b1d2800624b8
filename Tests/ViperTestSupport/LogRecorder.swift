public import Logging
import Synchronization

/// Collects log entries, for assertions on what is logged and how often.
public final class LogRecorder: Sendable {
    public struct Entry: Sendable {
        public var level: Logger.Level
        public var message: String
        public var metadata: Logger.Metadata
    }

    private let storage = Mutex<[Entry]>([])

    public init() {}

    public var entries: [Entry] { self.storage.withLock { $0 } }

    func append(_ entry: Entry) {
        self.storage.withLock { $0.append(entry) }
    }

    /// A logger writing here.
    public var logger: Logger {
        Logger(label: "viper-tests") { _ in RecordingLogHandler(recorder: self) }
    }

    public func messages(at level: Logger.Level) -> [String] {
        self.entries.filter { $0.level == level }.map(\.message)
    }

    /// How many messages `predicate` accepts, at any level.
    public func count(_ predicate: (String) -> Bool) -> Int {
        self.entries.count { predicate($0.message) }
    }
}

/// The handler behind ``LogRecorder/logger``.
struct RecordingLogHandler: LogHandler {
    let recorder: LogRecorder
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { self.metadata[key] }
        set { self.metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let merged = self.metadata.merging(event.metadata ?? [:]) { _, new in new }
        self.recorder.append(.init(level: event.level, message: "\(event.message)", metadata: merged))
    }
}
