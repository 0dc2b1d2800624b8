public import SettingsAPI

/// Presents the daemon's status and runs `sync` requests: the View-facing side of remote sync.
public struct SyncPresenter: Sendable {
    private let recorder: SyncStatusRecorder
    private let source: (any RemoteSource)?
    private let interactor: RemoteSyncInteractor?
    private let schemas: @Sendable () -> [ModuleSchema]
    private let version: String
    private let now: @Sendable () -> Double

    /// - Parameters:
    ///   - recorder: The sync status.
    ///   - source: The remote source, `nil` when sync is off.
    ///   - interactor: Applies snapshots; asked which keys a sync changed.
    ///   - schemas: The schemas served now.
    ///   - version: The daemon's version.
    ///   - now: The wall clock, seconds since the Unix epoch.
    public init(
        recorder: SyncStatusRecorder,
        source: (any RemoteSource)?,
        interactor: RemoteSyncInteractor?,
        schemas: @escaping @Sendable () -> [ModuleSchema],
        version: String,
        now: @escaping @Sendable () -> Double
    ) {
        self.recorder = recorder
        self.source = source
        self.interactor = interactor
        self.schemas = schemas
        self.version = version
        self.now = now
    }

    /// The remote revision in force, for `explain`.
    public var remoteRevision: String? { self.recorder.snapshot.revision }

    /// What the daemon serves and the state of sync.
    public func status() -> StatusViewModel {
        let schemas = self.schemas()
        return StatusViewModel(
            version: self.version,
            modules: schemas.count,
            keys: schemas.reduce(0) { $0 + $1.items.count },
            sync: self.syncStatus(),
            now: self.now()
        )
    }

    /// Syncs now, waits, and reports the keys whose effective value changed.
    public func syncNow() async throws(SettingsFailure) -> SyncResultViewModel {
        guard let source = self.source, let interactor = self.interactor else {
            throw .syncUnavailable(reason: "no remote is configured (set remote in viper-settingsd.conf or --remote)")
        }
        let mark = interactor.mark()
        await source.syncNow()
        return SyncResultViewModel(
            sync: self.syncStatus(),
            changed: interactor.changedKeys(since: mark),
            now: self.now()
        )
    }

    private func syncStatus() -> SyncStatusViewModel {
        let status = self.recorder.snapshot
        return SyncStatusViewModel(
            state: status.state,
            source: status.source,
            lastSuccess: status.lastSuccess,
            lastAttempt: status.lastAttempt,
            revision: status.revision,
            lastError: status.lastError,
            nextAttempt: status.nextAttempt,
            rejected: status.rejected
        )
    }
}
