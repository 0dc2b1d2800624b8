import Glibc
public import Logging
public import NIOPosix
import ViperPOSIX
public import ViperSettings

/// The durable ``SettingsRepository``: one JSON snapshot and one append-only journal per module in a state directory.
///
/// Files, flat and readable (see `StateDirectory`): `NAME.json` is the snapshot,
/// `{"format": 1, "module": "network", "revision": 7, "local": {"proxy.port": 8080}}` pretty-printed, and
/// `NAME.journal` holds one compact JSON line per change since it,
/// `{"revision":8,"set":{"proxy.port":8080},"remove":["proxy.mode"]}`. `NAME.remote.json` caches the remote
/// layers stored by ``updateRemote(module:_:)`` and the revision that set them (see `RemoteLayers`); it is replaced
/// whole (temporary file, fsync, rename, directory fsync) in the same group commit as the journal records, so
/// updates and remote updates of a module are serialized and share syncs. The module's revision after loading is the
/// greater of the snapshot's and journal's and the remote file's: revisions never decrease, so it is the revision of
/// the latest change, whichever kind it was.
///
/// - **Loading** is lazy: a module's files are read on its first access and the state is cached; files that do not
///   parse are moved aside and repaired as ``ModuleLoader`` describes, never stopping the other modules.
/// - **Writes** append one line to the journal, so their cost does not grow with the module. An update returns only
///   once its line is written and `fdatasync`ed (and the directory fsynced when the journal was just created).
///   When a journal holds more than `compactAfterRecords` records or `compactAfterBytes` bytes, the module is compacted: the snapshot is
///   rewritten (temporary file, fsync, rename, directory fsync), then the journal is emptied and fsynced.
/// - **Group commit**: concurrent updates, of one module or several, share syncs. Every record queued while a batch
///   is written goes into the next batch, written and synced on the thread pool (one `fdatasync` per journal) as
///   soon as the batch before is done, before the callers of that one are answered; the caller of its oldest record
///   leads it: takes its outcome, starts the next, and wakes its callers. There is no background task. The
///   in-memory state is updated in order when a record is queued, so the next `decide` sees it; readers
///   (``state(of:)``) see only durable states.
/// - **Failures**: when a batch cannot be made durable, its callers get a ``StorageError`` naming the file and the
///   `errno` text, and nothing of the batch is left for a restart to replay: the journal is cut back to its size
///   before the batch and synced (when even that fails, the next write of the module does it before appending).
///   The module's state falls back to the last durable one (the revision does not move on), queued writes of the
///   module fail too, reads keep working, and the next write simply tries again, so the module recovers by itself
///   once the disk works again. The first failure is logged as an error, the recovery as a notice. SIGHUP does not
///   matter here: nothing needs reopening.
/// - **Files that cannot be used** (see ``ModuleLoader``): the module serves what could be read and refuses writes
///   with an error naming the path and the problem; each refused write loads the files again first, so fixing them
///   is enough.
/// - **Revisions** read from disk are never trusted for arithmetic: a module at revision `Int64.max` refuses writes
///   with a ``StorageError`` rather than overflowing.
/// - A `decide` returning `nil` touches no file.
public actor JSONFileRepository: SettingsRepository {
    /// The state directory.
    public nonisolated let directory: String
    let files: StateDirectory
    let loader: ModuleLoader
    let writer: JournalWriter
    let threadPool: NIOThreadPool
    let logger: Logger
    let compactAfterRecords: Int
    let compactAfterBytes: Int
    /// Where durable change records are published for watchers.
    let feed: ChangeFeed?
    /// The daemon's lock on the directory, taken before any write when it could not be at start.
    let stateLock: StateDirectoryLock?

    var entries: [String: ModuleEntry] = [:]
    /// The durable state of every loaded module, for ``currentState(of:)``.
    private nonisolated let published = PublishedStates()
    /// Callers waiting for a module being loaded, by module.
    private var loading: [String: [CheckedContinuation<Void, Never>]] = [:]
    /// Open journals, by module.
    var descriptors: [String: Int32] = [:]
    /// Records not yet taken by a batch, in order.
    var queue: [PendingWrite] = []
    /// Whether a caller is committing a batch (or compacting for ``close()``); the journals are its alone.
    var committing = false
    /// The batch being written on the thread pool, for its leader to finish.
    var inFlight: InFlightBatch?
    /// Callers of ``close()`` waiting for the journals.
    var closeWaiters: [CheckedContinuation<Void, Never>] = []
    /// Whether the modules loaded are what the files hold under this daemon's lock: false until the lock is held
    /// (another daemon may write the files meanwhile), see ``lockedForWriting()``.
    var holdsLockedState: Bool
    /// Callers waiting while another takes the lock and loads the modules again; `nil` when none is taking it.
    var lockWaiters: [CheckedContinuation<Void, Never>]?
    /// Told once the lock was taken late and the modules read again, before any other write goes on.
    var readAgain: (@Sendable () async -> Void)?

    /// Creates a repository over `directory`, which is created on the first write when it is missing.
    ///
    /// - Parameters:
    ///   - directory: The state directory, e.g. `/var/lib/viper-settings`.
    ///   - threadPool: Runs every blocking file operation, off the cooperative pool; it must be started.
    ///   - logger: Receives repairs of corrupt files (error), dropped torn lines and skipped values (warning), and
    ///     storage failures (error).
    ///   - compactAfterRecords: A module's journal is compacted into its snapshot when it holds more records.
    ///   - compactAfterBytes: … or when it would grow past this many bytes.
    ///   - schema: The schema of a module, to log stored values that break it when the module is loaded.
    ///   - feed: Receives the change record of every durable change that moved a module's revision, in order.
    ///   - stateLock: The lock on `directory`: a batch is not written while it cannot be held (another daemon took
    ///     the directory while this one could not open it); `nil` writes without a lock.
    ///   - timestamp: The UTC time stamp for the names of files moved aside, `YYYYMMDDTHHMMSSZ`; the current time
    ///     when `nil`.
    public init(
        directory: String,
        threadPool: NIOThreadPool,
        logger: Logger,
        compactAfterRecords: Int = 4000,
        compactAfterBytes: Int = 1 << 20,
        schema: @escaping @Sendable (String) -> ModuleSchema? = { _ in nil },
        feed: ChangeFeed? = nil,
        stateLock: StateDirectoryLock? = nil,
        timestamp: (@Sendable () -> String)? = nil
    ) {
        precondition(compactAfterRecords >= 1, "compactAfterRecords must be at least 1")
        precondition(compactAfterBytes >= 1, "compactAfterBytes must be at least 1")
        let files = StateDirectory(path: directory)
        self.directory = files.path
        self.files = files
        self.loader = ModuleLoader(
            directory: files,
            logger: logger,
            timestamp: timestamp ?? { WallClock.system.compactUTCStamp() },
            schema: schema
        )
        self.writer = JournalWriter(directory: files)
        self.threadPool = threadPool
        self.logger = logger
        self.compactAfterRecords = compactAfterRecords
        self.compactAfterBytes = compactAfterBytes
        self.feed = feed
        self.stateLock = stateLock
        self.holdsLockedState = stateLock?.isHeld ?? true
    }

    deinit {
        for descriptor in self.descriptors.values { FileOperations.close(descriptor) }
    }

    /// How many `fsync`/`fdatasync` calls the repository made, of files and of the directory (for tests).
    package nonisolated var syncCount: Int { self.files.syncCount }

    /// The module's durable state; ``ModuleState/empty`` when nothing was stored.
    public func state(of module: String) async throws -> ModuleState {
        try await self.entry(for: module).durable
    }

    /// The durable state of a loaded module, as ``state(of:)`` returns it, without entering the actor; `nil` before
    /// the module's first access.
    public nonisolated func currentState(of module: String) -> ModuleState? {
        self.published.state(of: module)
    }

    /// A number that grows whenever ``currentState(of:)`` may return something new, for any module: what is made
    /// from those states can be reused while it stays the same. Read it before reading the states.
    public nonisolated var currentGeneration: UInt64 {
        self.published.generation
    }

    /// Lets `decide` compute a change from the module's newest state, appends it to the journal and returns once it
    /// is durable. See the type's documentation for group commit and failures.
    public func update(
        module: String,
        _ decide: @Sendable (ModuleState) throws -> LocalChange?
    ) async throws -> (before: ModuleState, after: ModuleState) {
        try await self.change(
            module: module,
            decide: decide,
            applied: { $0.applied(to: $1) },
            write: { change, after in
                PendingWrite(module: module, line: JournalRecord(change: change).line, after: after)
            }
        )
    }

    /// The step local and remote updates share: `decide` sees the module's newest state (pending updates
    /// included); a change becomes the module's state at once and returns once `write` of it is durable.
    func change<Change>(
        module: String,
        decide: (ModuleState) throws -> Change?,
        applied: (Change, ModuleState) -> ModuleState,
        write: (Change, ModuleState) -> PendingWrite
    ) async throws -> (before: ModuleState, after: ModuleState) {
        while true {
            let entry = try await self.writableEntry(for: module)
            let before = entry.state
            if let refusal = self.revisionRefusal(module, before) { throw refusal }
            guard let change = try decide(before) else {
                // Nothing to write, but the state decided on may hold writes that are not durable yet: "unchanged"
                // is acknowledged once they are, and decided again if they failed (the state is then the durable
                // one, where this change may be a change after all).
                if let pending = entry.lastPending, pending.outcome == nil {
                    await pending.settled()
                    continue
                }
                return (before, before)
            }
            let after = applied(change, before)
            entry.state = after
            let pending = write(change, after)
            if after.revision > before.revision { pending.published = after.history.record(at: after.revision) }
            entry.lastPending = pending
            defer { if entry.lastPending === pending { entry.lastPending = nil } }
            try await self.commit(pending)
            return (before, after)
        }
    }

    /// Why a write of the module would be refused now: its files cannot be used (they are loaded again first, as a
    /// write does), or its revision is the highest there is. `nil` when a write may go ahead.
    public func writeRefusal(of module: String) async -> (any Error)? {
        do {
            let entry = try await self.writableEntry(for: module)
            return self.revisionRefusal(module, entry.state) ?? self.directoryRefusal(module)
        } catch {
            return error
        }
    }

    /// The modules whose last write failed and no write has succeeded since (a full disk, an I/O error), each as
    /// the failure that was logged, by module name; a failure of several modules alike (the state directory
    /// removed) once.
    public func failingWrites() -> [StorageError] {
        var told: Set<String> = []
        return self.entries.keys.sorted().compactMap { self.entries[$0]?.writeFailure }
            .filter { told.insert($0.message).inserted }
    }

    /// Why the module's state files could not be read at its last load (see ``SettingsRepository/unusableState(of:)``):
    /// files read but not writable (a file system mounted read-only) serve what they hold, which watchers are told.
    /// Not read again here (each load that fails is logged, and every watcher asks): a write, or a report of the
    /// problems (`status`, the `STATUS=` line), reads them again.
    public func unusableState(of module: String) async -> (any Error)? {
        (try? await self.entry(for: module))?.unreadFailure
    }

    /// The refusal of a write of a module whose state directory cannot take it (a read-only file system, no
    /// permission): a module without files yet would have to create them there.
    private func directoryRefusal(_ module: String) -> StorageError? {
        guard FileOperations.kind(self.directory) != nil,
            let code = FileOperations.accessError(self.directory, W_OK | X_OK)
        else { return nil }
        let reason =
            code == EROFS
            ? "its file system is mounted read-only (remount it read-write)"
            : "\(SystemErrorText.describe(code)) (the daemon's user must be able to write and search it)"
        return StorageError(
            "module '\(module)' refuses writes: the state directory \(self.directory) cannot be written: \(reason)",
            errno: code
        )
    }

    /// The refusal of a write of a module at `state`'s revision when it leaves no room for another.
    private func revisionRefusal(_ module: String, _ state: ModuleState) -> StorageError? {
        guard state.revision == .max else { return nil }
        return StorageError(
            """
            module '\(module)' refuses writes: it is at revision \(state.revision), the highest there is (read \
            from its state files in \(self.directory)); fix or remove those files, then restart viper-settingsd (a \
            running daemon does not read a module's files again below a revision it served)
            """,
            errno: EOVERFLOW
        )
    }

    /// Compacts every journal that holds records into its snapshot and closes the journals, waiting for the batch
    /// being committed. Optional, for a graceful stop: without it, the next start replays the journals. The
    /// repository stays usable and reopens journals as needed.
    public func close() async {
        if self.committing {
            await withCheckedContinuation { self.closeWaiters.append($0) }
        } else {
            self.committing = true
        }
        defer { self.passOn() }
        let work = self.entries.compactMap { module, entry in
            (entry.journalRecords > 0 || entry.journalCut != nil) && entry.loadFailure == nil
                ? (module: module, descriptor: self.descriptors[module], state: entry.durable, cut: entry.journalCut)
                : nil
        }
        let open = Array(self.descriptors.values)
        self.descriptors = [:]
        let writer = self.writer
        let stateLock = self.stateLock
        do {
            let results = try await self.threadPool.runIgnoringCancellation {
                defer { for descriptor in open { FileOperations.close(descriptor) } }
                if let failure = stateLock?.heldOrTaken() { throw failure }
                return work.map { item in
                    let cut = writer.cutBack(item.module, descriptor: item.descriptor, to: item.cut)
                    return (cut, writer.compact(item.module, descriptor: item.descriptor, to: item.state))
                }
            }
            for (item, result) in zip(work, results) {
                self.entries[item.module]?.journalCut = result.0
                self.apply(result.1, module: item.module)
            }
        } catch {
            self.logger.error("Could not compact the journals at close: \(error)")
            for descriptor in open { FileOperations.close(descriptor) }
        }
    }

    // MARK: - Loading

    /// The module's entry, as ``entry(for:)``. A module whose files could not be used is loaded again first;
    /// throws when they still cannot be used.
    func writableEntry(for module: String) async throws(StorageError) -> ModuleEntry {
        if !self.holdsLockedState {
            do {
                try await self.lockedForWriting()
            } catch {
                // The module's own files say more, when they cannot be used either (the directory is a file).
                if let entry = self.entries[module], entry.loadFailure != nil { self.entries[module] = nil }
                if let failure = try await self.entry(for: module).loadFailure {
                    throw StorageError("module '\(module)' refuses writes: \(failure.message)", errno: failure.errno)
                }
                throw error
            }
        }
        let entry = try await self.entryLoadedAgain(for: module)
        if let failure = entry.loadFailure {
            throw StorageError("module '\(module)' refuses writes: \(failure.message)", errno: failure.errno)
        }
        return entry
    }

    /// The module's entry, its files read again when they could not be used at its last load (they may have been
    /// fixed since); a module whose files now load is logged as taking writes again, and its watchers start over.
    private func entryLoadedAgain(for module: String) async throws(StorageError) -> ModuleEntry {
        var entry = try await self.entry(for: module)
        if let failure = entry.loadFailure {
            if self.entries[module] === entry { self.entries[module] = nil }
            entry = try await self.entry(for: module)
            guard entry.loadFailure == nil else { return entry }
            self.logger.notice(
                "The files of module \(module) load again, it takes writes (the problem was: \(failure))",
                metadata: ["module": "\(module)"]
            )
            // What was served meanwhile was not the module's state: its watchers start over from the real one.
            self.feed?.reset(module: module, cause: .stateReloaded)
        }
        return entry
    }

    /// The module's entry, loading its files on first access; concurrent first accesses share one load.
    private func entry(for module: String) async throws(StorageError) -> ModuleEntry {
        try Self.validate(module)
        while true {
            if let entry = self.entries[module] { return entry }
            if self.loading[module] != nil {
                await withCheckedContinuation { self.loading[module, default: []].append($0) }
                continue
            }
            self.loading[module] = []
            let loader = self.loader
            let result: Result<LoadedModule, StorageError>
            do {
                result = .success(try await self.threadPool.runIgnoringCancellation { loader.load(module) })
            } catch {
                result = .failure(StorageError("cannot load module '\(module)': \(error)"))
            }
            if case .success(let loaded) = result {
                self.entries[module] = ModuleEntry(loaded, module: module, published: self.published)
            }
            for waiter in self.loading.removeValue(forKey: module) ?? [] { waiter.resume() }
            if case .failure(let error) = result { throw error }
        }
    }

    /// The modules being loaded now.
    var loadingModules: [String] { Array(self.loading.keys) }

    /// Returns once the load of `module` under way has ended.
    func loaded(_ module: String) async {
        guard self.loading[module] != nil else { return }
        await withCheckedContinuation { self.loading[module, default: []].append($0) }
    }

    /// Loads the files of those of `modules` not loaded yet, on every core, in one job of the thread pool: at start,
    /// instead of a job (and two thread switches) per module at its first access. Loads as that first access would,
    /// reporting what it finds in the log; a module whose name is invalid is left to its first access to refuse.
    public func preload(modules: [String]) async {
        let names = modules.filter { module in
            (try? Self.validate(module)) != nil && self.entries[module] == nil && self.loading[module] == nil
        }
        guard !names.isEmpty else { return }
        for module in names { self.loading[module] = [] }
        let loader = self.loader
        let loaded = try? await self.threadPool.runIgnoringCancellation { names.concurrentMap(loader.load) }
        for (index, module) in names.enumerated() {
            // Not loaded (the pool has stopped): the module's first access loads it, or says why it cannot.
            if let files = loaded?[index] {
                self.entries[module] = ModuleEntry(files, module: module, published: self.published)
            }
            for waiter in self.loading.removeValue(forKey: module) ?? [] { waiter.resume() }
        }
    }

    /// The problems of the state directory and of the files of `modules`, each naming the path and what is wrong
    /// with it (a file where the directory should be, a directory where a file should be): for a report at start.
    public func problems(modules: [String]) async -> [StorageError] {
        let files = self.files
        let checked = try? await self.threadPool.runIgnoringCancellation {
            // The directory's own problem (it cannot be used) stands for every module's.
            let directory = files.problems(modules: [])
            return (directory, directory.isEmpty ? modules.map { files.problems(modules: [$0]) } : [])
        }
        var found = checked?.0 ?? []
        if found.isEmpty, let byModule = checked?.1 {
            for (module, problems) in zip(modules, byModule) {
                // A module whose files are of the right kind may still refuse writes: a file too large to be its,
                // or the highest revision there is, found when it was loaded (and read again now if it failed).
                if !problems.isEmpty {
                    found += problems
                } else if let refusal = await self.loadedRefusal(module) {
                    found.append(refusal)
                }
            }
        }
        guard found.isEmpty, !self.holdsLockedState else { return found }
        // The files are fine, but this daemon could not lock the directory at start: another may hold it now.
        return [
            StorageError(
                "the state directory \(self.directory) is not locked by this daemon (it could not be at start): each"
                    + " write tries to take the lock first, and is refused while another viper-settingsd holds it"
            )
        ]
    }

    /// Why the module, as loaded, refuses writes (its files could not be read, or its revision is the highest
    /// there is); `nil` when it takes them, or is not loaded.
    private func loadedRefusal(_ module: String) async -> StorageError? {
        guard var entry = self.entries[module] else { return nil }
        if let failure = entry.loadFailure, self.mayBeFixed(failure, module: module) {
            // Read again, as a write would: a report every few seconds must not say what was fixed since.
            entry = (try? await self.entryLoadedAgain(for: module)) ?? entry
        }
        if let failure = entry.loadFailure {
            return StorageError("module '\(module)' refuses writes: \(failure.message)", errno: failure.errno)
        }
        return self.revisionRefusal(module, entry.state)
    }

    /// Whether a module's load failure may be gone, without reading its files: a wrong kind or a mode the check of
    /// the files no longer finds, a file over the size limit that no longer is (a size is looked at, not read). Any
    /// other failure (an I/O error) is reported as found until a write reads the files again, not read again at every
    /// report, which would log it again each time.
    private func mayBeFixed(_ failure: StorageError, module: String) -> Bool {
        switch failure.errno {
        case EISDIR, EINVAL, ELOOP, EACCES, EPERM, EROFS, ENOENT:
            return true
        case EFBIG:
            let paths = [
                self.files.snapshotPath(module), self.files.journalPath(module), self.files.remotePath(module),
            ]
            return !paths.contains { (FileOperations.fileSize($0) ?? 0) > FileOperations.stateFileLimit }
        default:
            return false
        }
    }

    /// Module names come from schemas; anything that could escape the directory or hide a file is refused, and so
    /// is a name ending in `.remote`, whose snapshot would be another module's remote file, and a name longer than
    /// ``ModuleSchema/maximumIDLength`` bytes, some of whose files could not be named (a file name has at most 255).
    private static func validate(_ module: String) throws(StorageError) {
        guard !module.isEmpty, !module.hasPrefix("."), !module.contains("/"), !module.utf8.contains(0),
            !module.hasSuffix(".remote"), module.utf8.count <= ModuleSchema.maximumIDLength
        else {
            throw StorageError(
                "invalid module name '\(module)': it must not be empty, contain '/', start with '.', end in '.remote' "
                    + "or be longer than \(ModuleSchema.maximumIDLength) bytes"
            )
        }
    }
}
