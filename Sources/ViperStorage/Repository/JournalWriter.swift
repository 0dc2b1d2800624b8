import ViperSettings

/// Appends a batch of journal records durably, one `fdatasync` per journal file, and compacts journals that grew
/// past the threshold. Blocks: runs on the thread pool, driven by the repository's group commit.
struct JournalWriter: Sendable {
    /// The records of one module in one batch.
    struct Append: Sendable {
        var module: String
        /// The open journal, or `nil` to open (and maybe create) it.
        var descriptor: Int32?
        /// The lines, newlines included; when empty, the journal is neither opened nor synced.
        var bytes: [UInt8]
        /// When set, the module's remote file is replaced with these bytes.
        var remoteFile: [UInt8]?
        /// When set, the journal is compacted after the append: this state is written as the snapshot and the
        /// journal is emptied.
        var compactTo: ModuleState?
        /// When set, a failed batch may have left a torn tail past this size: the journal is cut to it (and
        /// synced) before anything is appended.
        var cutTo: Int?
        /// The module's state after the batch: written as the snapshot should the journal be found removed.
        var state: ModuleState
        /// The bytes the journal holds as far as the repository knows.
        var journalBytes: Int
    }

    /// What became of an ``Append``.
    struct Outcome: Sendable {
        var module: String
        /// The journal left open for the next batch; `nil` after a failure (the descriptor is closed).
        var descriptor: Int32?
        /// Set when the records are not known to be durable.
        var error: StorageError?
        /// After a failure: the size the journal still has to be cut to, when cutting off what the failed batch
        /// appended failed too; `nil` when the journal holds no trace of the failed batch.
        var pendingCut: Int?
        /// The journal's size after a successful append.
        var journalBytes: Int?
        var compaction: Compaction = .notRequested
        /// The journal was removed, renamed away or replaced while the daemon ran (its path no longer names the open
        /// file, or a new one had to be created where records were): the records it held are written with the whole
        /// state as a new snapshot.
        var journalLost = false
        /// The journal did not have the size this daemon left it with (another process cut it, or wrote to it): its
        /// size found and the one expected. The records are written with the whole state as a new snapshot too.
        var journalChanged: (found: Int, expected: Int)?
    }

    enum Compaction: Sendable {
        case notRequested
        /// The snapshot holds everything; the journal holds only the line that carries its revision, this many bytes.
        case done(journalBytes: Int)
        /// The snapshot could not be written; the journal is intact.
        case snapshotFailed(StorageError)
        /// The snapshot is durable but the journal could not be emptied: its state is unknown.
        case journalFailed(StorageError)
    }

    let directory: StateDirectory

    /// Writes every append, then syncs each journal once, then replaces the remote files (temporary file, write,
    /// fsync, rename), then syncs the directory once if a journal was created or a remote file renamed.
    func write(_ appends: [Append]) -> [Outcome] {
        var outcomes: [Outcome] = []
        /// Appends that created a journal or renamed a remote file: the directory must be synced for them.
        var newNames: [Int] = []
        /// The journal's size before each append: what a failure cuts it back to.
        var starts: [Int?] = []
        /// Whether each append created its journal: a failure removes it rather than leave an empty file behind.
        var created: [Bool] = []
        for append in appends {
            let path = self.directory.journalPath(append.module)
            var outcome = Outcome(module: append.module, descriptor: append.descriptor)
            var start: Int?
            var createdJournal = false
            if !append.bytes.isEmpty || append.cutTo != nil {
                do {
                    // Every batch checks that the directory is the one it wrote in before.
                    try self.directory.create()
                    // Removed, renamed away or replaced: the records written since it was opened are in a file
                    // a restart does not read. Else `found` is its size, which needs no other `fstat`.
                    var found: Int?
                    if let open = outcome.descriptor {
                        found = try FileOperations.namedSize(path, descriptor: open)
                        if found == nil {
                            FileOperations.close(open)
                            outcome.descriptor = nil
                            outcome.journalLost = true
                        }
                    }
                    if outcome.descriptor == nil {
                        let opened = try FileOperations.openForAppend(path)
                        outcome.descriptor = opened.descriptor
                        if opened.created {
                            createdJournal = true
                            newNames.append(outcomes.count)
                            if append.journalBytes > 0 { outcome.journalLost = true }
                        }
                    }
                    if let cut = append.cutTo {
                        try FileOperations.truncate(outcome.descriptor!, to: cut, path: path)
                        try self.directory.sync(outcome.descriptor!, path: path)
                        found = nil
                    }
                    let size: Int
                    if let found {
                        size = found
                    } else {
                        size = try FileOperations.size(outcome.descriptor!, path: path)
                    }
                    if append.cutTo == nil && !outcome.journalLost && size != append.journalBytes {
                        // Cut or written to by someone else: what it holds is not what this daemon wrote, and a
                        // restart would not read back the state served.
                        outcome.journalLost = true
                        outcome.journalChanged = (size, append.journalBytes)
                    }
                    start = size
                    try FileOperations.writeAll(outcome.descriptor!, append.bytes, path: path)
                } catch {
                    outcome.error = error
                }
            }
            starts.append(start)
            created.append(createdJournal)
            outcomes.append(outcome)
        }
        for index in outcomes.indices where outcomes[index].error == nil && !appends[index].bytes.isEmpty {
            do {
                try self.directory.dataSync(
                    outcomes[index].descriptor!,
                    path: self.directory.journalPath(appends[index].module)
                )
            } catch {
                outcomes[index].error = error
            }
        }
        for index in outcomes.indices where outcomes[index].error == nil {
            guard let bytes = appends[index].remoteFile else { continue }
            let module = appends[index].module
            do {
                try self.directory.replace(
                    self.directory.remotePath(module),
                    with: bytes,
                    temporary: self.directory.remoteTemporaryPath(module)
                )
                newNames.append(index)
            } catch {
                outcomes[index].error = error
            }
        }
        if newNames.contains(where: { outcomes[$0].error == nil }) {
            do {
                try self.directory.syncDirectory()
            } catch {
                for index in newNames where outcomes[index].error == nil { outcomes[index].error = error }
            }
        }
        for index in outcomes.indices {
            if outcomes[index].error != nil {
                // Leave no trace of the failed records that a restart could replay, nor the journal they created.
                if created[index] {
                    outcomes[index].pendingCut = self.removeCreated(
                        appends[index].module,
                        descriptor: outcomes[index].descriptor
                    )
                } else {
                    outcomes[index].pendingCut = self.cutBack(
                        appends[index].module,
                        descriptor: outcomes[index].descriptor,
                        to: starts[index] ?? appends[index].cutTo
                    )
                    if let descriptor = outcomes[index].descriptor { FileOperations.close(descriptor) }
                }
                outcomes[index].descriptor = nil
            } else {
                outcomes[index].journalBytes = starts[index].map { $0 + appends[index].bytes.count }
                if outcomes[index].journalLost {
                    self.recover(
                        &outcomes[index],
                        append: appends[index],
                        start: starts[index],
                        created: created[index]
                    )
                } else if let state = appends[index].compactTo {
                    outcomes[index].compaction = self.compact(
                        appends[index].module,
                        descriptor: outcomes[index].descriptor,
                        to: state
                    )
                }
            }
        }
        return outcomes
    }

    /// After a journal was found removed: its records exist only in memory, so the module's whole state is written
    /// as the snapshot (and the new journal emptied); when that fails, the batch fails and leaves no trace.
    private func recover(_ outcome: inout Outcome, append: Append, start: Int?, created: Bool) {
        switch self.compact(append.module, descriptor: outcome.descriptor, to: append.state) {
        case .done, .notRequested:
            outcome.compaction = self.compacted(append.state)
        case .snapshotFailed(let error), .journalFailed(let error):
            outcome.error = error
            if created {
                outcome.pendingCut = self.removeCreated(append.module, descriptor: outcome.descriptor)
            } else {
                outcome.pendingCut = self.cutBack(append.module, descriptor: outcome.descriptor, to: start)
                if let descriptor = outcome.descriptor { FileOperations.close(descriptor) }
            }
            outcome.descriptor = nil
        }
    }

    /// Removes the journal a failed batch created (a module's first write, on a full disk), so that a failed write
    /// leaves nothing behind: it is emptied and synced first (a crash before the directory is synced cannot bring
    /// back its records), closed, then removed and the directory synced. Returns 0 when that failed (the next write
    /// empties the journal before appending), else `nil`.
    func removeCreated(_ module: String, descriptor: Int32?) -> Int? {
        let path = self.directory.journalPath(module)
        do {
            if let descriptor {
                defer { FileOperations.close(descriptor) }
                try FileOperations.truncate(descriptor, to: 0, path: path)
                try self.directory.sync(descriptor, path: path)
            }
            try FileOperations.remove(path)
            try self.directory.syncDirectory()
            return nil
        } catch {
            return 0
        }
    }

    /// Cuts the journal back to `size` and syncs it, after a failed batch; returns `size` when that failed too (it
    /// is to be tried again before the next append), else `nil`. A journal no longer than `size` is left as it is
    /// (`nil`): nothing of the failed records reached it, whatever the disk refuses (a file system turned read-only).
    func cutBack(_ module: String, descriptor: Int32?, to size: Int?) -> Int? {
        guard let size else { return nil }
        let path = self.directory.journalPath(module)
        let current: Int? =
            if let descriptor {
                try? FileOperations.size(descriptor, path: path)
            } else {
                FileOperations.fileSize(path) ?? 0
            }
        if let current, current <= size { return nil }
        do {
            if let descriptor {
                try FileOperations.truncate(descriptor, to: size, path: path)
                try self.directory.sync(descriptor, path: path)
            } else if FileOperations.exists(path) {
                try FileOperations.truncateFile(path, to: size)
            }
            return nil
        } catch {
            return size
        }
    }

    /// Writes `state` as the module's snapshot, then empties the journal but for the line that carries the
    /// snapshot's revision (``JournalRecord/compactionLine(revision:)``): the journal is cut only once the snapshot
    /// is durable. Without a descriptor, the journal file is opened for the cut (when it exists).
    func compact(_ module: String, descriptor: Int32?, to state: ModuleState) -> Compaction {
        do {
            try self.directory.writeSnapshot(ModuleSnapshot.encode(module: module, state: state), module: module)
        } catch {
            return .snapshotFailed(error)
        }
        let path = self.directory.journalPath(module)
        let line = JournalRecord.compactionLine(revision: state.revision)
        do {
            if let descriptor {
                try FileOperations.truncate(descriptor, to: 0, path: path)
                try FileOperations.writeAll(descriptor, line, path: path)
                try self.directory.sync(descriptor, path: path)
            } else if FileOperations.exists(path) {
                let descriptor = try FileOperations.openForAppend(path).descriptor
                defer { FileOperations.close(descriptor) }
                try FileOperations.truncate(descriptor, to: 0, path: path)
                try FileOperations.writeAll(descriptor, line, path: path)
                try self.directory.sync(descriptor, path: path)
            }
        } catch {
            return .journalFailed(error)
        }
        return self.compacted(state)
    }

    /// The outcome of a compaction to `state`.
    private func compacted(_ state: ModuleState) -> Compaction {
        .done(journalBytes: JournalRecord.compactionLine(revision: state.revision).count)
    }
}
