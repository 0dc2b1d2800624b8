import Logging
import ViperSettings

/// Group commit: the records queued while a batch is written make the next batch, started as soon as the one before
/// is done (before its callers are answered), and led by the caller of its oldest record: that caller takes its
/// outcome, then hands the lead on. One append and one sync per journal (and one replacement per remote file) per
/// batch. No background task.
extension JSONFileRepository {
    /// A batch being written on the thread pool: its records by module, in order, and the pool's work.
    struct InFlightBatch {
        var modules: [String]
        var writes: [String: [PendingWrite]]
        var job: PoolJob<[JournalWriter.Outcome]>
    }

    /// Queues a record and returns once it is durable, leading batches when it is this caller's turn.
    func commit(_ write: PendingWrite) async throws(StorageError) {
        self.queue.append(write)
        if self.committing {
            await write.wait()
        } else {
            self.committing = true
            self.inFlight = self.startBatch()
        }
        if write.outcome == nil {
            // This caller leads: the batch in flight holds its record.
            await self.finishBatch()
        }
        try write.outcome!.get()
    }

    /// Hands the journals to a waiting ``close()``, else starts the next batch with every queued record and makes the
    /// caller of its oldest one the leader, else frees them.
    func passOn() {
        if !self.closeWaiters.isEmpty {
            self.closeWaiters.removeFirst().resume()
        } else if let next = self.queue.first {
            self.inFlight = self.startBatch()
            next.lead()
        } else {
            self.committing = false
        }
    }

    /// Takes every queued record and starts writing them on the thread pool: one append and one sync per journal.
    func startBatch() -> InFlightBatch {
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
            let entry = self.entries[module]!
            let bytes = records.flatMap(\.line)
            let journalRecords = entry.journalRecords + records.count { !$0.line.isEmpty }
            let full =
                journalRecords > self.compactAfterRecords
                || entry.journalBytes - entry.foldFailedAtBytes + bytes.count > self.compactAfterBytes
            appends.append(
                JournalWriter.Append(
                    module: module,
                    descriptor: self.descriptors[module],
                    bytes: bytes,
                    // Only the newest remote file of the batch is written: it replaces the others.
                    remoteFile: records.last { $0.remoteFile != nil }?.remoteFile,
                    compactTo: full ? records.last!.after : nil,
                    cutTo: entry.journalCut,
                    state: records.last!.after,
                    journalBytes: entry.journalBytes
                )
            )
        }
        let writer = self.writer
        let stateLock = self.stateLock
        let job = PoolJob<[JournalWriter.Outcome]>(on: self.threadPool) { [appends] in
            // Nothing is written in a directory this daemon does not hold: another one may be writing it.
            if let failure = stateLock?.heldOrTaken() {
                return appends.map { .init(module: $0.module, descriptor: $0.descriptor, error: failure) }
            }
            return writer.write(appends)
        }
        return InFlightBatch(modules: modules, writes: writes, job: job)
    }

    /// Waits for the batch in flight, records its outcome, starts the next batch (see ``passOn()``), then finishes
    /// the records: the next batch is on its way to the thread pool before the callers of this one are answered.
    func finishBatch() async {
        let batch = self.inFlight!
        self.inFlight = nil
        let (modules, writes) = (batch.modules, batch.writes)
        let outcomes: [JournalWriter.Outcome]
        do {
            outcomes = try await batch.job.value()
        } catch {
            let failure = StorageError("cannot write the journals: the storage thread pool is not running (\(error))")
            outcomes = modules.map { .init(module: $0, descriptor: self.descriptors[$0], error: failure) }
        }
        let durable = self.record(outcomes, of: writes)
        self.closeJournals(beyond: Self.openJournalLimit, keeping: Set(modules))
        self.passOn()
        for (module, records) in durable {
            for record in records { record.finish(.success(())) }
            self.feed?.publish(module: module, records: records.compactMap(\.published))
        }
    }

    /// Records the outcome of a batch: fails the records of a module that could not be written, moves the durable
    /// state of the others; returns the records now durable, by module. Apart from ``finishBatch()``, whose async
    /// frame its leader's task holds for as long as it lives (a connection's).
    private func record(
        _ outcomes: [JournalWriter.Outcome],
        of writes: [String: [PendingWrite]]
    ) -> [(module: String, records: [PendingWrite])] {
        var durable: [(module: String, records: [PendingWrite])] = []
        for outcome in outcomes {
            let records = writes[outcome.module]!
            self.descriptors[outcome.module] = outcome.descriptor
            if let error = outcome.error {
                self.fail(outcome.module, error, records: records, pendingCut: outcome.pendingCut)
                continue
            }
            let entry = self.entries[outcome.module]!
            if let changed = outcome.journalChanged {
                self.logger.warning(
                    "The journal of module \(outcome.module) was changed by another process while the daemon ran (\(changed.found) bytes where the daemon had written \(changed.expected)); the changes the daemon made are kept: the module's whole state is written as a new snapshot",
                    metadata: ["module": "\(outcome.module)"]
                )
            } else if outcome.journalLost {
                self.logger.warning(
                    "The journal of module \(outcome.module) was removed or renamed while the daemon ran; the changes it held are kept: the module's whole state is written as a new snapshot",
                    metadata: ["module": "\(outcome.module)"]
                )
            }
            entry.durable = records.last!.after
            entry.journalRecords += records.count { !$0.line.isEmpty }
            entry.journalBytes = outcome.journalBytes ?? entry.journalBytes
            entry.journalCut = nil
            if let failure = entry.writeFailure {
                entry.writeFailure = nil
                self.logger.notice(
                    "Storage of module \(outcome.module) works again, writes are durable (the failure was: \(failure))",
                    metadata: ["module": "\(outcome.module)"]
                )
            }
            durable.append((outcome.module, records))
            self.apply(outcome.compaction, module: outcome.module)
        }
        return durable
    }

    /// The most journals kept open between batches: the daemon keeps a fixed number of descriptors for everything
    /// but its connections (`DescriptorLimit.reserved`), whatever the number of modules written.
    static let openJournalLimit = 32

    /// Closes open journals until at most `limit` are open, those of `recent` modules last; they are opened again
    /// at their module's next write.
    func closeJournals(beyond limit: Int, keeping recent: Set<String>) {
        guard self.descriptors.count > limit else { return }
        let order = self.descriptors.keys.sorted { !recent.contains($0) && recent.contains($1) }
        for module in order.prefix(self.descriptors.count - limit) {
            if let descriptor = self.descriptors.removeValue(forKey: module) { FileOperations.close(descriptor) }
        }
    }

    /// Records the result of a compaction.
    func apply(_ compaction: JournalWriter.Compaction, module: String) {
        guard let entry = self.entries[module] else { return }
        switch compaction {
        case .notRequested:
            break
        case .done(let journalBytes):
            entry.journalRecords = 0
            entry.journalBytes = journalBytes
            entry.foldFailedAtBytes = 0
            self.logger.debug(
                "Compacted the journal of \(module) into its snapshot at revision \(entry.durable.revision)",
                metadata: ["module": "\(module)"]
            )
        case .snapshotFailed(let error):
            // The journal is intact; try again after another full journal.
            entry.journalRecords = 0
            entry.foldFailedAtBytes = entry.journalBytes
            self.logger.error(
                "Could not write the snapshot of \(module), the journal keeps its records: \(error)",
                metadata: ["module": "\(module)"]
            )
        case .journalFailed(let error):
            // The snapshot holds every record: the journal is to be emptied before the next append.
            entry.journalRecords = 0
            entry.foldFailedAtBytes = 0
            self.fail(module, error, records: [], pendingCut: 0)
        }
    }

    /// Fails a module's records and queued records: its state falls back to the last durable one, and the next
    /// write tries again (first cutting the journal to `pendingCut`, when set). Logged once per run of failures.
    func fail(_ module: String, _ error: StorageError, records: [PendingWrite], pendingCut: Int?) {
        guard let entry = self.entries[module] else { return }
        let first = entry.writeFailure == nil
        entry.writeFailure = error
        entry.journalCut = pendingCut ?? entry.journalCut
        entry.state = entry.durable
        if let descriptor = self.descriptors.removeValue(forKey: module) { FileOperations.close(descriptor) }
        let queued = self.queue.filter { $0.module == module }
        self.queue.removeAll { $0.module == module }
        let failed = records.count + queued.count
        let trace =
            entry.journalCut.map {
                "the journal could not be cut back to \($0) bytes yet, the next write does that first; a restart before it may bring them back"
            } ?? "nothing of them remains in the files"
        let message = """
            Storage failure of module \(module): \(error); \(failed) changes are not stored (\(trace)), the next \
            write tries again
            """
        self.logger.log(level: first ? .error : .debug, "\(message)", metadata: ["module": "\(module)"])
        // Records of this batch that may still be in the journal (it could not be cut back: the disk refuses even
        // that) are said to be uncertain, not simply failed: a restart before the next write of the module replays
        // them.
        let written =
            pendingCut == nil
            ? error
            : StorageError(
                """
                \(error.message); the journal could not be cut back either, so a restart before the next successful \
                write of module \(module) may bring this change back
                """,
                errno: error.errno
            )
        for record in records { record.finish(.failure(written)) }
        for record in queued { record.finish(.failure(error)) }
    }
}
