public import Logging
import SettingsAPI
import Synchronization

/// The use cases of remote sync: the status, a sync asked for by a client (only by writers, and shared between
/// calls that come close together), the revision in force after a restart, and applying what the source says to
/// the remote layers of every module (``apply(_:)``).
public final class SyncInteractor: SyncInteractorProtocol {
    /// The sync in progress and the last one, to share them between calls.
    private struct Coalescing {
        /// Whether a sync runs, and the calls waiting for its outcome (or for why it did not finish).
        var running = false
        var waiters: [CheckedContinuation<Result<SyncOutcome, SettingsFailure>, Never>] = []
        /// The outcome of the last sync that finished and when it ended (on the elapsed-time clock).
        var last: (outcome: SyncOutcome, ended: Duration)?
        /// What the last sync came to, finished or not: for a call that joined it as it was ending.
        var lastResult: Result<SyncOutcome, SettingsFailure>?
    }

    let schemas: @Sendable () -> [ModuleSchema]
    let repository: any SettingsRepository
    let recorder: SyncStatusRecorder
    let logger: Logger
    let changes = Mutex<(sequence: Int, keys: [(Int, String)])>((0, []))
    /// The last snapshot applied, and the modules whose remote values could not be stored then, for the rejected
    /// values that ``refresh()`` lists.
    let lastApplied = Mutex<(snapshot: RemoteSnapshot, notStored: [RemoteRejection])?>(nil)
    /// One snapshot is applied at a time: the source's, or the last one again after a reload.
    let applying = SerialGate()
    private let source: (any RemoteSource)?
    private let accounts: any AccountDirectory
    /// Bounds the audit entries of refused syncs, shared with the Settings modules.
    private let refusals: RefusalAuditLimiter
    private let minimumInterval: Duration
    private let elapsed: @Sendable () -> Duration
    private let coalescing = Mutex(Coalescing())
    private let healthNow: @Sendable () async -> DaemonHealth

    /// Creates the Interactor.
    ///
    /// - Parameters:
    ///   - source: The remote source, `nil` when sync is off.
    ///   - recorder: The status the source records.
    ///   - schemas: The schemas served now (they change on reload).
    ///   - repository: Where the remote layers are stored.
    ///   - accounts: Names of users and groups, for the `writers` of schemas.
    ///   - minimumInterval: A sync asked for within this long after the last one ended returns that one's outcome.
    ///   - clock: Measures `minimumInterval`.
    ///   - health: What is wrong with the daemon now, for `status`.
    ///   - logger: Where changes and denials are logged.
    public init(
        source: (any RemoteSource)?,
        recorder: SyncStatusRecorder,
        schemas: @escaping @Sendable () -> [ModuleSchema],
        repository: any SettingsRepository,
        accounts: any AccountDirectory,
        minimumInterval: Duration = .seconds(1),
        clock: some Clock<Duration> = ContinuousClock(),
        refusals: RefusalAuditLimiter = RefusalAuditLimiter(),
        health: @escaping @Sendable () async -> DaemonHealth = { .healthy },
        logger: Logger
    ) {
        self.healthNow = health
        self.refusals = refusals
        self.source = source
        self.recorder = recorder
        self.schemas = schemas
        self.repository = repository
        self.accounts = accounts
        self.minimumInterval = minimumInterval
        self.elapsed = Self.stopwatch(clock)
        self.logger = logger
    }

    public func status() -> SyncStatus { self.recorder.snapshot }

    public func health() async -> DaemonHealth { await self.healthNow() }

    public func served() -> (modules: Int, keys: Int) {
        let schemas = self.schemas()
        return (schemas.count, schemas.reduce(0) { $0 + $1.items.count })
    }

    public func sync(caller: Caller) async throws(SettingsFailure) -> SyncOutcome {
        guard let source = self.source else {
            throw .syncUnavailable(reason: "no remote is configured (set remote in viper-settingsd.conf or --remote)")
        }
        try self.authorize(caller)
        enum Turn {
            case lead
            case join
            case recent(SyncOutcome)
        }
        let now = self.elapsed()
        let turn = self.coalescing.withLock { state -> Turn in
            if state.running { return .join }
            if let last = state.last, now - last.ended < self.minimumInterval { return .recent(last.outcome) }
            state.running = true
            return .lead
        }
        switch turn {
        case .recent(var outcome):
            outcome.earlier = true
            return outcome
        case .join:
            let result = await withCheckedContinuation {
                (continuation: CheckedContinuation<Result<SyncOutcome, SettingsFailure>, Never>) in
                let ended = self.coalescing.withLock { state -> Result<SyncOutcome, SettingsFailure>? in
                    // The sync it joined ended meanwhile (and maybe later ones): the last one's result.
                    if !state.running, let last = state.lastResult { return last }
                    state.waiters.append(continuation)
                    return nil
                }
                if let ended { continuation.resume(returning: ended) }
            }
            return try result.get()
        case .lead:
            let result = await self.lead(source)
            let ended = self.elapsed()
            let waiters = self.coalescing.withLock { state in
                state.running = false
                // Only a sync that finished is shared with the calls after it: one that did not tells them nothing.
                if case .success(let outcome) = result { state.last = (outcome, ended) }
                state.lastResult = result
                defer { state.waiters = [] }
                return state.waiters
            }
            for waiter in waiters { waiter.resume(returning: result) }
            return try result.get()
        }
    }

    /// Asks `source` for an attempt and waits for it: the status after it and the keys it changed, or why it did not
    /// finish (the status then describes an earlier attempt, not this one).
    private func lead(_ source: any RemoteSource) async -> Result<SyncOutcome, SettingsFailure> {
        let mark = self.mark()
        do {
            try await source.syncNow()
        } catch {
            let reason =
                switch error {
                case .sourceStopped: "the remote source stopped before its fetch ended"
                case .cancelled: "the call was cancelled"
                }
            self.logger.notice(
                "a sync did not finish: \(reason)",
                metadata: ["source": "\(source.endpointDescription)"]
            )
            return .failure(.syncInterrupted(error, source: source.endpointDescription))
        }
        return .success(SyncOutcome(status: self.recorder.snapshot, changed: self.changedKeys(since: mark)))
    }

    /// Records the source's revision of the remote values cached on disk, so that `status` and `explain` name it
    /// after a restart, before the source answers.
    public func restoreRevision() async {
        await self.refresh()
        var revisions: [(revision: String, hasValues: Bool)] = []
        for schema in self.schemas() {
            guard let state = try? await self.repository.state(of: schema.name), let revision = state.remoteRevision
            else { continue }
            revisions.append((revision, !state.recommended.isEmpty || !state.mandatory.isEmpty))
        }
        // Every module holding remote values was stored with the latest revision.
        if let revision = (revisions.first { $0.hasValues } ?? revisions.first)?.revision {
            self.recorder.restored(revision: revision)
        }
    }

    /// A mark to ask later which keys changed after it.
    public func mark() -> Int { self.changes.withLock { $0.sequence } }

    /// The keys whose effective value changed after `mark`, in order, without repeats.
    public func changedKeys(since mark: Int) -> [String] {
        var seen: Set<String> = []
        return self.changes.withLock { $0.keys }.filter { $0.0 > mark && seen.insert($0.1).inserted }.map(\.1)
    }

    /// Lets root and the writers of any module through; logs each denial as an audit entry at notice (at most
    /// ``RefusalAuditLimiter/burst`` a second for one uid).
    private func authorize(_ caller: Caller) throws(SettingsFailure) {
        if self.schemas().contains(where: { caller.mayWrite($0.writers, accounts: self.accounts) }) { return }
        self.refusals.logRefusal(
            of: caller,
            method: "Sync",
            "permission denied: uid \(caller.uid) may not sync",
            to: self.logger
        )
        throw .syncDenied(uid: caller.uid)
    }

    private static func stopwatch<C: Clock<Duration>>(_ clock: C) -> @Sendable () -> Duration {
        let start = clock.now
        return { start.duration(to: clock.now) }
    }
}
