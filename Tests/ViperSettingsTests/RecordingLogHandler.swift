import Logging
import Synchronization

/// A log handler that keeps the messages logged through it, for tests that check what is logged and how often.
struct RecordingLogHandler: LogHandler {
    /// The messages, shared by every copy of the handler.
    final class Lines: Sendable {
        let lines = Mutex<[(level: Logger.Level, message: String)]>([])
        var all: [(level: Logger.Level, message: String)] { self.lines.withLock { $0 } }
        func count(_ predicate: (String) -> Bool) -> Int { self.all.count { predicate($0.message) } }
    }

    let recorded: Lines
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { self.metadata[key] }
        set { self.metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        self.recorded.lines.withLock { $0.append((event.level, "\(event.message)")) }
    }

    /// A logger that records into `lines`.
    static func logger(into lines: Lines) -> Logger {
        Logger(label: "test", factory: { _ in RecordingLogHandler(recorded: lines) })
    }
}
