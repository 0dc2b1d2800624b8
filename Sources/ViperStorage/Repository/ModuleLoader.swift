import Logging
import ViperSettings

/// A module's state as read from its files.
struct LoadedModule: Sendable {
    var state: ModuleState
    /// Complete records in the journal, for the compaction threshold.
    var journalRecords: Int
    /// Set when the files could not be repaired: the state is served, but writes are refused.
    var failure: StorageError?
}

/// Reads a module's snapshot and replays its journal, repairing what a crash or a bad edit left behind. Blocks.
///
/// - A snapshot that does not parse, has the wrong shape or names another module is moved aside to
///   `NAME.json.corrupt-TIMESTAMP`; the module starts empty, then the journal is replayed.
/// - A torn last journal line (no newline, or not parsable) is dropped and the file cut after the last good line.
/// - An unparsable line before the last: the records before it are kept, written as a fresh snapshot, and the
///   journal is moved aside to `NAME.journal.corrupt-TIMESTAMP`.
/// - Stored values that are not valid setting values are skipped.
/// - The remote file `NAME.remote.json` gives the recommended and mandatory layers; when it does not parse, has the
///   wrong shape or names another module, it is moved aside to `NAME.remote.json.corrupt-TIMESTAMP` and the module
///   starts without remote layers (the next remote update writes them anew). The module's revision is the greater of
///   the remote file's and the one of the snapshot and journal: revisions never decrease, so it is the latest.
///
/// Every journal record is replayed, whatever its revision: records are absolute sets and removals, so replaying
/// records a snapshot already holds (after a crash between a compaction's rename and its truncation) gives the same
/// state, and no rule about revisions is needed.
struct ModuleLoader: Sendable {
    let directory: StateDirectory
    let logger: Logger
    let timestamp: @Sendable () -> String

    /// Loads `module`; throws only when a file cannot be read at all.
    func load(_ module: String) throws(StorageError) -> LoadedModule {
        var logger = self.logger
        logger[metadataKey: "module"] = "\(module)"
        FileOperations.removeIfPresent(self.directory.temporaryPath(module))
        FileOperations.removeIfPresent(self.directory.remoteTemporaryPath(module))
        var loaded = LoadedModule(state: .empty, journalRecords: 0, failure: nil)
        try self.readSnapshot(module, into: &loaded, logger: logger)
        try self.replayJournal(module, into: &loaded, logger: logger)
        try self.readRemote(module, into: &loaded, logger: logger)
        return loaded
    }

    /// Reads the remote layers, after the journal: the revision is the greater of the two.
    private func readRemote(_ module: String, into loaded: inout LoadedModule, logger: Logger) throws(StorageError) {
        let path = self.directory.remotePath(module)
        guard let bytes = try FileOperations.readFile(path) else { return }
        do {
            let remote = try RemoteLayers(decoding: bytes, module: module)
            loaded.state.recommended = remote.recommended
            loaded.state.mandatory = remote.mandatory
            loaded.state.remoteRevision = remote.remoteRevision
            loaded.state.revision = max(loaded.state.revision, remote.revision)
            if !remote.skippedKeys.isEmpty {
                logger.warning(
                    "Skipped stored values that are not valid setting values in \(path): \(remote.skippedKeys)",
                    metadata: ["file": "\(path)"]
                )
            }
        } catch {
            do {
                let aside = try self.directory.moveAside(path, timestamp: self.timestamp())
                logger.error(
                    """
                    The remote file \(path) is corrupt (\(error.reason)); moved aside to \(aside), the module starts \
                    without remote layers until the next remote update
                    """,
                    metadata: ["file": "\(path)", "moved_to": "\(aside)", "reason": "\(error.reason)"]
                )
            } catch let failure {
                logger.error(
                    """
                    The remote file \(path) is corrupt (\(error.reason)) and could not be moved aside: \(failure); \
                    writes to the module are refused
                    """,
                    metadata: ["file": "\(path)", "reason": "\(error.reason)"]
                )
                loaded.failure = loaded.failure ?? failure
            }
        }
    }

    private func readSnapshot(_ module: String, into loaded: inout LoadedModule, logger: Logger) throws(StorageError) {
        let path = self.directory.snapshotPath(module)
        guard let bytes = try FileOperations.readFile(path) else { return }
        do {
            let snapshot = try ModuleSnapshot(decoding: bytes, module: module)
            loaded.state = snapshot.state
            if !snapshot.skippedKeys.isEmpty {
                logger.warning(
                    "Skipped stored values that are not valid setting values in \(path): \(snapshot.skippedKeys)",
                    metadata: ["file": "\(path)"]
                )
            }
        } catch {
            do {
                let aside = try self.directory.moveAside(path, timestamp: self.timestamp())
                logger.error(
                    """
                    The snapshot \(path) is corrupt (\(error.reason)); moved aside to \(aside), the module starts \
                    from its journal alone
                    """,
                    metadata: ["file": "\(path)", "moved_to": "\(aside)", "reason": "\(error.reason)"]
                )
            } catch let failure {
                logger.error(
                    """
                    The snapshot \(path) is corrupt (\(error.reason)) and could not be moved aside: \(failure); \
                    writes to the module are refused
                    """,
                    metadata: ["file": "\(path)", "reason": "\(error.reason)"]
                )
                loaded.failure = failure
            }
        }
    }

    private func replayJournal(_ module: String, into loaded: inout LoadedModule, logger: Logger) throws(StorageError) {
        let path = self.directory.journalPath(module)
        guard let bytes = try FileOperations.readFile(path) else { return }
        let lines = JournalLines(bytes)
        var records = 0
        for record in lines.records {
            if !record.skippedKeys.isEmpty {
                logger.warning(
                    """
                    Skipped stored values that are not valid setting values in \(path), revision \
                    \(record.change.revision): \(record.skippedKeys)
                    """,
                    metadata: ["file": "\(path)"]
                )
            }
            loaded.state = record.change.applied(to: loaded.state)
            records += 1
        }
        loaded.journalRecords = records
        guard let bad = lines.bad else { return }
        if bad.isLast {
            logger.warning(
                "Dropped the torn last line \(bad.line) of \(path) (\(bad.reason)), kept \(records) records",
                metadata: ["file": "\(path)", "reason": "\(bad.reason)"]
            )
            do {
                try FileOperations.truncateFile(path, to: bad.offset)
            } catch {
                logger.error("Could not cut \(path): \(error); writes to the module are refused")
                loaded.failure = loaded.failure ?? error
            }
            return
        }
        do {
            try self.directory.writeSnapshot(ModuleSnapshot.encode(module: module, state: loaded.state), module: module)
            let aside = try self.directory.moveAside(path, timestamp: self.timestamp())
            loaded.journalRecords = 0
            logger.error(
                """
                Line \(bad.line) of the journal \(path) is corrupt (\(bad.reason)); kept the \(records) records before \
                it in a fresh snapshot and moved the journal aside to \(aside)
                """,
                metadata: ["file": "\(path)", "moved_to": "\(aside)", "reason": "\(bad.reason)"]
            )
        } catch {
            logger.error(
                """
                Line \(bad.line) of the journal \(path) is corrupt (\(bad.reason)) and could not be set aside: \
                \(error); serving the \(records) records before it, writes to the module are refused
                """,
                metadata: ["file": "\(path)", "reason": "\(bad.reason)"]
            )
            loaded.failure = loaded.failure ?? error
        }
    }
}

/// A journal's bytes split into the good records up to the first bad line, and that line.
private struct JournalLines {
    struct BadLine {
        /// 1-based.
        var line: Int
        /// Where the line starts in the file.
        var offset: Int
        var reason: String
        /// Whether nothing but this line follows the good records (a torn append).
        var isLast: Bool
    }

    var records: [JournalRecord] = []
    var bad: BadLine?

    init(_ bytes: [UInt8]) {
        var start = 0
        var number = 0
        while start < bytes.count {
            number += 1
            let newline = bytes[start...].firstIndex(of: UInt8(ascii: "\n"))
            let end = newline ?? bytes.count
            let next = newline.map { $0 + 1 } ?? bytes.count
            let text = bytes[start..<end]
            if newline == nil {
                self.bad = BadLine(line: number, offset: start, reason: "no newline at the end", isLast: true)
                return
            }
            if !text.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") || $0 == UInt8(ascii: "\r") }) {
                do {
                    self.records.append(try JournalRecord(decoding: text))
                } catch {
                    self.bad = BadLine(line: number, offset: start, reason: error.reason, isLast: next == bytes.count)
                    return
                }
            }
            start = next
        }
    }
}
