import Logging
import ViperSettings

/// A module's state as read from its files.
struct LoadedModule: Sendable {
    var state: ModuleState
    /// Complete records in the journal, for the compaction threshold.
    var journalRecords: Int = 0
    /// The journal's size in bytes, for the compaction threshold.
    var journalBytes: Int = 0
    /// Set when the files could not be read or repaired: what could be read is served, but writes are refused
    /// (until a later write finds the files usable again).
    var failure: StorageError?
    /// Set when a file could not be read (or the state directory cannot be used): what is served is not all the
    /// files hold. Not for files read but not writable, whose values are served as they are.
    var unread: StorageError?
    /// The largest of its state files that is read (``ModuleLoader/fileLimit(_:)``), worked out once per load.
    var fileLimit = FileOperations.stateFileLimit
}

/// Reads a module's snapshot and replays its journal, repairing what a crash or a bad edit left behind. Blocks;
/// never throws: what cannot be read is logged and makes the module refuse writes.
///
/// - When the state directory, or `NAME.json`, `NAME.journal` or `NAME.remote.json`, is something other than what
///   it should be (a file where the directory should be, a directory where a file should be), or cannot be read, the
///   error names the path and the problem; the module serves what its other files hold (not the journal without
///   its snapshot) and refuses writes with that error.
/// - A snapshot that does not parse, has the wrong shape or names another module is moved aside to
///   `NAME.json.corrupt-TIMESTAMP` once the fresh snapshot that replaces it is durable; the module starts empty,
///   then the journal is replayed.
/// - A torn last journal line (no newline) is dropped and the file cut after the last good line: it is an append
///   that never completed, so never acknowledged.
/// - Any other bad line (unparsable, or a revision below the line's before it), the last one included: the records
///   before it are kept, written as a fresh snapshot, and the journal is moved aside to
///   `NAME.journal.corrupt-TIMESTAMP`.
/// - Stored values that are not valid setting values are skipped; values that break the module's schema are kept
///   (the schema may change back) but each is logged (see ``StoredValueCheck``).
/// - The remote file `NAME.remote.json` gives the recommended and mandatory layers; when it does not parse, has the
///   wrong shape or names another module, it is moved aside to `NAME.remote.json.corrupt-TIMESTAMP` (once the fresh
///   snapshot is durable) and the module starts without remote layers (the next remote update writes them anew).
///
/// Revisions never go back: the module's revision is the greatest of the snapshot's, the journal's (each record
/// raises it, none lowers it) and the remote file's. After a repair that set text aside, it is moved above every
/// revision that text names (read with ``RevisionScan``), and a fresh snapshot records it, so that no revision a
/// client was given is reused for another state. A corrupt file is moved aside only once that snapshot is durable:
/// when it cannot be written (a full disk), the corrupt file stays in place, the module refuses writes, and the next
/// load finds the same revisions again.
struct ModuleLoader: Sendable {
    let directory: StateDirectory
    let logger: Logger
    let timestamp: @Sendable () -> String
    /// The schema of a module, to check stored values against; `nil` when unknown.
    let schema: @Sendable (String) -> ModuleSchema?

    /// What reading one file gave.
    enum FileContent {
        case missing
        case bytes([UInt8])
        /// Not a regular file, or unreadable: logged, and the module's `failure` set.
        case unusable
    }

    /// What the repairs of one load found.
    struct Repair {
        /// Whether text was set aside or dropped that may have held acknowledged revisions.
        var lostText = false
        /// The highest revision seen anywhere, parsed or scanned.
        var highest: Int64 = 0
        /// Whether a fresh snapshot must be written (a journal with a corrupt line is being set aside).
        var journalToSetAside: BadJournal?
        /// The revision of the journal's first record.
        var firstJournalRevision: Int64?
        /// Whether the journal's first line is the one a compaction leaves: a snapshot at its revision was written.
        var journalStartsCompacted = false
        /// The revision of the snapshot, when it was read.
        var snapshotRevision: Int64?
        /// The snapshot and remote file found corrupt, to be moved aside once the fresh snapshot is durable.
        var corrupt: [CorruptFile] = []
    }

    /// A state file that does not parse, to be moved aside.
    struct CorruptFile {
        var path: String
        /// "snapshot", "remote file".
        var kind: String
        var reason: String
        /// What the module does without it, for the log.
        var consequence: String
    }

    struct BadJournal {
        var line: Int
        var reason: String
        var records: Int
    }

    /// Loads `module`.
    func load(_ module: String) -> LoadedModule {
        var logger = self.logger
        logger[metadataKey: "module"] = "\(module)"
        var loaded = LoadedModule(state: .empty)
        if let problem = self.directory.problem() {
            logger.error(
                "\(problem.message); module \(module) serves its defaults and refuses writes",
                metadata: ["file": "\(self.directory.path)"]
            )
            loaded.failure = problem
            loaded.unread = problem
            return loaded
        }
        loaded.fileLimit = self.fileLimit(module)
        FileOperations.removeIfPresent(self.directory.temporaryPath(module))
        FileOperations.removeIfPresent(self.directory.remoteTemporaryPath(module))
        var repair = Repair()
        let snapshotMissing = !FileOperations.exists(self.directory.snapshotPath(module))
        if self.readSnapshot(module, into: &loaded, repair: &repair, logger: logger) {
            self.replayJournal(module, into: &loaded, repair: &repair, logger: logger)
            // Every revision given out since the last snapshot has its journal line (remote updates too), and a
            // journal without a snapshot is a young module's: one that starts later lost the snapshot before it.
            if snapshotMissing, let first = repair.firstJournalRevision, first > 1 || repair.journalStartsCompacted {
                // A snapshot was written (the journal says so) and is gone: the module goes on above its revision.
                if repair.journalStartsCompacted { repair.lostText = true }
                logger.error(
                    """
                    Module \(module) has no snapshot \(self.directory.snapshotPath(module)), but its journal starts at \
                    revision \(first): the values stored before that revision are missing (was the snapshot removed?); \
                    serving what the journal holds
                    """,
                    metadata: ["file": "\(self.directory.snapshotPath(module))"]
                )
            } else if let read = repair.snapshotRevision, repair.journalStartsCompacted,
                let compacted = repair.firstJournalRevision, compacted > read
            {
                // The journal was folded into a snapshot at `compacted`: this one is older (restored from a
                // backup?). What was written between is gone; its revisions must not name what follows.
                repair.lostText = true
                logger.error(
                    """
                    Module \(module): the snapshot \(self.directory.snapshotPath(module)) is at revision \(read), older \
                    than revision \(compacted) its journal was folded into (was an older snapshot restored?): the \
                    changes after revision \(read) are missing; serving what the snapshot holds
                    """,
                    metadata: ["file": "\(self.directory.snapshotPath(module))"]
                )
            }
        } else if self.directory.fileProblem(self.directory.journalPath(module)) == nil,
            let bytes = try? FileOperations.readFile(self.directory.journalPath(module), limit: loaded.fileLimit),
            let highest = RevisionScan.highest(in: bytes[...])
        {
            // The journal is not replayed onto nothing, but the revision it shows was given out: the state served
            // meanwhile never has a lower one.
            loaded.state.revision = max(loaded.state.revision, highest)
        }
        self.readRemote(module, into: &loaded, repair: &repair, logger: logger)
        self.finishRepair(module, of: &loaded, repair: repair, logger: logger)
        loaded.state.history.settle(at: loaded.state.revision)
        if loaded.state.revision == .max {
            logger.error(
                """
                Module \(module) is at revision \(Int64.max), the highest there is: it refuses writes until its \
                state files in \(self.directory.path) are fixed
                """
            )
        }
        if let schema = self.schema(module) {
            StoredValueCheck(schema: schema, directory: self.directory, logger: logger).check(loaded.state)
        }
        return loaded
    }

    /// The largest state file of `module` that is read: 256 MiB, or more when its schema lets it hold more (its
    /// items' size limits, `max-value-size`). A larger file cannot be one the daemon wrote: it is refused, not read
    /// into memory.
    func fileLimit(_ module: String) -> Int {
        guard let schema = self.schema(module) else { return FileOperations.stateFileLimit }
        var largest = 0
        var total = 0
        for section in schema.sections {
            for item in section.items {
                let size =
                    switch item.type {
                    case .string(_, _, _, let maxSize), .strings(_, _, _, let maxSize):
                        maxSize ?? ModuleSchema.defaultMaxValueSize
                    case .bool, .int, .double: 64
                    }
                largest = max(largest, size)
                total += size
            }
        }
        // Three layers and a bounded history of each key; a journal batch of a record per connection, each line
        // with an old and a new value.
        return max(FileOperations.stateFileLimit, 4 * total + 2048 * largest)
    }

    /// The content of `path` (one of `loaded`'s files); a problem is logged and recorded as the module's failure.
    func read(_ path: String, into loaded: inout LoadedModule, logger: Logger) -> FileContent {
        let problem: StorageError
        if let wrongKind = self.directory.fileProblem(path) {
            problem = wrongKind
        } else {
            do {
                guard let bytes = try FileOperations.readFile(path, limit: loaded.fileLimit) else {
                    return .missing
                }
                // Read, but not to be written (a file system mounted read-only, a mode): what it holds is served.
                if let unwritable = self.directory.writeProblem(path) {
                    logger.error(
                        "\(unwritable.message); the module serves what its files hold and refuses writes",
                        metadata: ["file": "\(path)"]
                    )
                    loaded.failure = loaded.failure ?? unwritable
                }
                return .bytes(bytes)
            } catch {
                problem = error
            }
        }
        logger.error(
            "\(problem.message); the module serves what its other files hold and refuses writes",
            metadata: ["file": "\(path)"]
        )
        loaded.failure = loaded.failure ?? problem
        loaded.unread = loaded.unread ?? problem
        return .unusable
    }

    /// Moves the revision above everything lost, and writes the fresh snapshot that records it (and the journal's
    /// good records, when the journal is set aside); only then moves the corrupt files aside, so that a snapshot that
    /// cannot be written leaves them, and the revisions they name, for the next load.
    private func finishRepair(_ module: String, of loaded: inout LoadedModule, repair: Repair, logger: Logger) {
        guard repair.lostText else { return }
        let floor = repair.highest.incrementedSaturating
        if loaded.state.revision < floor {
            logger.warning(
                """
                Module \(module) continues at revision \(floor), \(floor > repair.highest ? "above" : "at the highest") \
                revision \(repair.highest) found in its files, so that no revision is reused for another state
                """
            )
            loaded.state.revision = floor
        }
        loaded.state.history.settle(at: loaded.state.revision)
        let path = self.directory.journalPath(module)
        var pending = repair.corrupt
        do {
            let bytes = ModuleSnapshot.encode(module: module, state: loaded.state)
            if let index = pending.firstIndex(where: { $0.path == self.directory.snapshotPath(module) }) {
                let aside = try self.directory.replaceCorruptSnapshot(
                    bytes,
                    module: module,
                    timestamp: self.timestamp()
                )
                self.logMovedAside(pending.remove(at: index), to: aside, logger: logger)
            } else {
                try self.directory.writeSnapshot(bytes, module: module)
            }
            while let file = pending.first {
                let aside = try self.directory.moveAside(file.path, timestamp: self.timestamp())
                self.logMovedAside(pending.removeFirst(), to: aside, logger: logger)
            }
            guard let bad = repair.journalToSetAside else { return }
            let aside = try self.directory.moveAside(path, timestamp: self.timestamp())
            loaded.journalRecords = 0
            loaded.journalBytes = 0
            logger.error(
                """
                Line \(bad.line) of the journal \(path) is corrupt (\(bad.reason)); kept the \(bad.records) records \
                before it in a fresh snapshot and moved the journal aside to \(aside)
                """,
                metadata: ["file": "\(path)", "moved_to": "\(aside)", "reason": "\(bad.reason)"]
            )
        } catch {
            for file in pending {
                logger.error(
                    """
                    The \(file.kind) \(file.path) is corrupt (\(file.reason)) and stays in place: the repair could \
                    not be written (\(error)); \(file.consequence), writes to the module are refused
                    """,
                    metadata: ["file": "\(file.path)", "reason": "\(file.reason)"]
                )
            }
            let what =
                repair.journalToSetAside.map {
                    "Line \($0.line) of the journal \(path) is corrupt (\($0.reason)) and could not be set aside"
                } ?? "The repaired state of module \(module) could not be written as a fresh snapshot"
            logger.error("\(what): \(error); serving what was read, writes to the module are refused")
            loaded.failure = loaded.failure ?? error
        }
    }

    /// Logs that the corrupt `file` was moved aside to `aside`.
    private func logMovedAside(_ file: CorruptFile, to aside: String, logger: Logger) {
        logger.error(
            "The \(file.kind) \(file.path) is corrupt (\(file.reason)); moved aside to \(aside), \(file.consequence)",
            metadata: ["file": "\(file.path)", "moved_to": "\(aside)", "reason": "\(file.reason)"]
        )
    }
}
