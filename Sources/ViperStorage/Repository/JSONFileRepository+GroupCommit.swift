import Logging
import ViperSettings

/// Group commit: the first waiting caller leads a batch of every queued record, one append and one sync per journal
/// (and one replacement per remote file), then hands the lead on. No background task.
extension JSONFileRepository {
    /// Queues a record and returns once it is durable, leading batches when it is this caller's turn.
    func commit(_ write: PendingWrite) async throws(StorageError) {
        self.queue.append(write)
        if self.committing {
            await write.wait()
        } else {
            self.committing = true
        }
        if write.outcome == nil {
            // This caller leads: its record is in the queue, so the batch holds it.
            await self.commitBatch()
            self.passOn()
        }
        try write.outcome!.get()
    }

    /// Hands the journals to a waiting ``close()``, else to the caller of the oldest queued record, else frees them.
    func passOn() {
        if !self.closeWaiters.isEmpty {
            self.closeWaiters.removeFirst().resume()
        } else if let next = self.queue.first {
            next.lead()
        } else {
            self.committing = false
        }
    }

    /// Writes every queued record, one append and one sync per journal, and finishes the records.
    func commitBatch() async {
        let batch = self.queue
        self.queue.removeAll()
        var modules: [String] = []
        var writes: [String: [PendingWrite]] = [:]
        for write in batch {
            if writes[write.module] == nil { modules.append(write.module) }
            writes[write.module, default: []].append(write)
        }
        var appends: [JournalWriter.Append] = []
        for module in modules {
            let records = writes[module]!
            var bytes: [UInt8] = []
            for record in records where record.remoteFile == nil { bytes += record.line }
            let journalRecords = self.entries[module]!.journalRecords + records.count { $0.remoteFile == nil }
            appends.append(
                JournalWriter.Append(
                    module: module,
                    descriptor: self.descriptors[module],
                    bytes: bytes,
                    // Only the newest remote file of the batch is written: it replaces the others.
                    remoteFile: records.last { $0.remoteFile != nil }?.remoteFile,
                    compactTo: journalRecords > self.compactAfterRecords ? records.last!.after : nil
                )
            )
        }
        let writer = self.writer
        let outcomes: [JournalWriter.Outcome]
        do {
            outcomes = try await self.threadPool.runIgnoringCancellation { [appends] in writer.write(appends) }
        } catch {
            let failure = StorageError("cannot write the journals: the storage thread pool is not running (\(error))")
            outcomes = appends.map { .init(module: $0.module, descriptor: $0.descriptor, error: failure) }
        }
        for outcome in outcomes {
            let records = writes[outcome.module]!
            self.descriptors[outcome.module] = outcome.descriptor
            if let error = outcome.error {
                self.fail(outcome.module, error, records: records)
                continue
            }
            let entry = self.entries[outcome.module]!
            entry.durable = records.last!.after
            entry.journalRecords += records.count { $0.remoteFile == nil }
            for record in records { record.finish(.success(())) }
            self.apply(outcome.compaction, module: outcome.module)
        }
    }

    /// Records the result of a compaction.
    func apply(_ compaction: JournalWriter.Compaction, module: String) {
        guard let entry = self.entries[module] else { return }
        switch compaction {
        case .notRequested:
            break
        case .done:
            entry.journalRecords = 0
            self.logger.debug(
                "Compacted the journal of \(module) into its snapshot at revision \(entry.durable.revision)",
                metadata: ["module": "\(module)"]
            )
        case .snapshotFailed(let error):
            // The journal is intact; try again after another full journal.
            entry.journalRecords = 0
            self.logger.error(
                "Could not write the snapshot of \(module), the journal keeps its records: \(error)",
                metadata: ["module": "\(module)"]
            )
        case .journalFailed(let error):
            entry.journalRecords = 0
            self.fail(module, error, records: [])
        }
    }

    /// Marks a module failed: its records and queued records fail, its state falls back to the last durable one.
    func fail(_ module: String, _ error: StorageError, records: [PendingWrite]) {
        guard let entry = self.entries[module] else { return }
        entry.failure = error
        entry.state = entry.durable
        if let descriptor = self.descriptors.removeValue(forKey: module) { FileOperations.close(descriptor) }
        let queued = self.queue.filter { $0.module == module }
        self.queue.removeAll { $0.module == module }
        self.logger.error(
            """
            Storage failure of module \(module): \(error); \(records.count + queued.count) changes are not durable, \
            the module refuses writes until it is reopened
            """,
            metadata: ["module": "\(module)"]
        )
        for record in records + queued { record.finish(.failure(error)) }
    }
}
