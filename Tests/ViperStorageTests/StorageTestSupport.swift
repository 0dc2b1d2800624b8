import Foundation
import Logging
import NIOPosix
import SettingsAPI
import Synchronization
import ViperSettings
import ViperSettingsTesting
import ViperStorage
import ViperTestSupport

/// A temporary directory, removed when the value is released (at the end of a test).
final class Scratch: Sendable {
    let path: String

    init() {
        let template = FileManager.default.temporaryDirectory.path + "/viper-storage-XXXXXX"
        var bytes = Array(template.utf8CString)
        guard let created = mkdtemp(&bytes) else { fatalError("mkdtemp failed: \(errno)") }
        self.path = String(cString: created)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: self.path)
    }

    /// A fresh, not yet existing subdirectory.
    func newDirectory() -> String {
        "\(self.path)/state-\(UUID().uuidString)"
    }

    func file(_ name: String) -> String { "\(self.path)/\(name)" }
}

/// Collects log entries, for assertions.
final class LogRecorder: Sendable {
    struct Entry: Sendable {
        var level: Logger.Level
        var message: String
        var metadata: Logger.Metadata
    }

    private let storage = Mutex<[Entry]>([])

    var entries: [Entry] { self.storage.withLock { $0 } }

    func append(_ entry: Entry) {
        self.storage.withLock { $0.append(entry) }
    }

    /// A logger writing here.
    var logger: Logger {
        Logger(label: "viper-storage-tests") { _ in RecordingLogHandler(recorder: self) }
    }

    func messages(at level: Logger.Level) -> [String] {
        self.entries.filter { $0.level == level }.map(\.message)
    }
}

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

/// The fixed time stamp of files moved aside in tests.
let testTimestamp = "20250102T030405Z"

/// A repository over `directory`, logging to `recorder`.
func makeRepository(
    _ directory: String,
    recorder: LogRecorder = LogRecorder(),
    compactAfterRecords: Int = 1000
) -> JSONFileRepository {
    JSONFileRepository(
        directory: directory,
        threadPool: .singleton,
        logger: recorder.logger,
        compactAfterRecords: compactAfterRecords,
        timestamp: { testTimestamp }
    )
}

/// A journal line as the repository writes it.
func journalLine(revision: Int64, set: JSONValue = [:], remove: [String] = []) -> String {
    let removed = JSONValue.array(remove.map { .string($0) })
    return "{\"revision\":\(revision),\"set\":\(set.serialized()),\"remove\":\(removed.serialized())}\n"
}

extension Files {
    /// The journal's lines, each parsed.
    static func journalLines(_ path: String) throws -> [JSONValue] {
        try self.read(path).split(separator: "\n").map { try JSONValue(parsing: String($0)) }
    }
}
