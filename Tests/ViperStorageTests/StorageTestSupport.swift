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
