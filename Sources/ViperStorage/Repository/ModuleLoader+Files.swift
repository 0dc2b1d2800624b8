import Logging
import ViperSettings

/// The reading of each file of a module.
extension ModuleLoader {
    /// Reads the snapshot; `false` when it is unusable, in which case the journal is not replayed (its records
    /// alone would be a partial state).
    func readSnapshot(
        _ module: String,
        into loaded: inout LoadedModule,
        repair: inout Repair,
        logger: Logger
    ) -> Bool {
        let path = self.directory.snapshotPath(module)
        guard case .bytes(let bytes) = self.read(path, into: &loaded, logger: logger) else {
            return loaded.failure == nil
        }
        do {
            let snapshot = try ModuleSnapshot(decoding: bytes, module: module)
            loaded.state = snapshot.state
            repair.snapshotRevision = snapshot.state.revision
            repair.highest = max(repair.highest, snapshot.state.revision)
            if let named = snapshot.historyHighest, named > snapshot.state.revision {
                // A revision damaged (a flipped digit) would go back: the history shows how far it had come.
                logger.warning(
                    """
                    The snapshot \(path) is at revision \(snapshot.state.revision) but its history names revision \
                    \(named): the module goes on above it
                    """,
                    metadata: ["file": "\(path)"]
                )
                repair.highest = max(repair.highest, named)
                repair.lostText = true
            } else if snapshot.historyUnread {
                logger.notice(
                    "The change history in \(path) does not read; a watcher resuming from before gets a resync",
                    metadata: ["file": "\(path)"]
                )
            }
            if !snapshot.skippedKeys.isEmpty {
                logger.warning(
                    "Skipped stored values that are not valid setting values in \(path): \(snapshot.skippedKeys)",
                    metadata: ["file": "\(path)"]
                )
            }
        } catch {
            self.setAside(
                path,
                kind: "snapshot",
                bytes: bytes,
                reason: error.reason,
                consequence: "the module starts from its journal alone: the values stored only in the snapshot are "
                    + "lost (they are in the copy moved aside)",
                repair: &repair
            )
        }
        return true
    }

    /// Replays the journal; a record raises the revision, never lowers it.
    func replayJournal(_ module: String, into loaded: inout LoadedModule, repair: inout Repair, logger: Logger) {
        let path = self.directory.journalPath(module)
        guard case .bytes(let bytes) = self.read(path, into: &loaded, logger: logger) else { return }
        let lines = JournalLines(bytes)
        var records = 0
        // What the snapshot holds: a record at or below its revision is in it already (a crash between writing the
        // snapshot and cutting the journal leaves them), and is not applied again: an older value would come back,
        // or another state be served at a revision a client was given.
        let snapshotRevision = loaded.state.revision
        var skipped = 0
        repair.firstJournalRevision = lines.records.first?.change.revision
        repair.journalStartsCompacted = lines.records.first?.compacted ?? false
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
            if snapshotRevision > 0, record.change.revision <= snapshotRevision, !record.compacted {
                skipped += 1
                records += 1
                continue
            }
            let revision = max(loaded.state.revision, record.change.revision)
            loaded.state = record.change.applied(to: loaded.state)
            loaded.state.revision = revision
            repair.highest = max(repair.highest, revision)
            // The line a compaction leaves, carrying the snapshot's revision, is no record to fold in again.
            if !record.compacted { records += 1 }
        }
        if skipped > 0 {
            logger.notice(
                "Skipped \(skipped) records of \(path) at or below revision \(snapshotRevision), which its snapshot holds",
                metadata: ["file": "\(path)"]
            )
        }
        loaded.journalRecords = records
        loaded.journalBytes = bytes.count
        guard let bad = lines.bad else { return }
        if bad.isLast {
            logger.warning(
                "Dropped the torn last line \(bad.line) of \(path) (\(bad.reason)), kept \(records) records",
                metadata: ["file": "\(path)", "reason": "\(bad.reason)"]
            )
            do {
                try FileOperations.truncateFile(path, to: bad.offset)
                loaded.journalBytes = bad.offset
            } catch {
                logger.error("Could not cut \(path): \(error); writes to the module are refused")
                loaded.failure = loaded.failure ?? error
            }
            return
        }
        repair.lostText = true
        repair.highest = max(repair.highest, RevisionScan.highest(in: bytes[bad.offset...]) ?? 0)
        // Each complete line from the bad one on held a record above the one before it (the writer appends whole
        // lines, revisions going up): the last had at least this revision, even when none of them can be read.
        let lost = Int64(RevisionScan.completeLines(in: bytes[bad.offset...]))
        let (atLeast, overflow) = loaded.state.revision.addingReportingOverflow(lost)
        repair.highest = max(repair.highest, overflow ? .max : atLeast)
        repair.journalToSetAside = BadJournal(line: bad.line, reason: bad.reason, records: records)
    }

    /// Reads the remote layers, after the journal: the revision is the greater of the two.
    func readRemote(_ module: String, into loaded: inout LoadedModule, repair: inout Repair, logger: Logger) {
        let path = self.directory.remotePath(module)
        guard case .bytes(let bytes) = self.read(path, into: &loaded, logger: logger) else { return }
        do {
            let remote = try RemoteLayers(decoding: bytes, module: module)
            loaded.state.recommended = remote.recommended
            loaded.state.mandatory = remote.mandatory
            loaded.state.remoteRevision = remote.remoteRevision
            loaded.state.revision = max(loaded.state.revision, remote.revision)
            repair.highest = max(repair.highest, remote.revision)
            if !remote.skippedKeys.isEmpty {
                logger.warning(
                    "Skipped stored values that are not valid setting values in \(path): \(remote.skippedKeys)",
                    metadata: ["file": "\(path)"]
                )
            }
        } catch {
            self.setAside(
                path,
                kind: "remote file",
                bytes: bytes,
                reason: error.reason,
                consequence: "the module starts without remote layers until the next remote update",
                repair: &repair
            )
        }
    }

    /// Notes the corrupt `kind` at `path`, to be moved aside once the repair is durable (see ``finishRepair``); the
    /// revisions the file's text still shows count for the repair (revisions never go back). Until then the file
    /// stays where it is, so that a repair that cannot be written (a full disk) leaves the next load the same
    /// revision floor.
    private func setAside(
        _ path: String,
        kind: String,
        bytes: [UInt8],
        reason: String,
        consequence: String,
        repair: inout Repair
    ) {
        repair.lostText = true
        repair.highest = max(repair.highest, RevisionScan.highest(in: bytes[...]) ?? 0)
        repair.corrupt.append(CorruptFile(path: path, kind: kind, reason: reason, consequence: consequence))
    }
}
