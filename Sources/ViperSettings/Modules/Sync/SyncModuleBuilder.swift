public import Logging

/// Assembles the Sync module (Interactor, Presenter) by constructor injection.
public struct SyncModuleBuilder: Sendable {
    /// The assembled module: the Presenter for the Router, the Interactor for the source's snapshots and the
    /// revision restored at start.
    public struct Module: Sendable {
        public let presenter: any SyncPresenterProtocol
        public let interactor: SyncInteractor
    }

    private let repository: any SettingsRepository
    private let accounts: any AccountDirectory
    private let logger: Logger
    private let refusals: RefusalAuditLimiter

    /// Creates a builder over the repository that stores the remote layers, the account directory for `writers`,
    /// the logger, and the bound on the audit entries of refused syncs (shared with the Settings modules).
    public init(
        repository: any SettingsRepository,
        accounts: any AccountDirectory,
        logger: Logger,
        refusals: RefusalAuditLimiter = RefusalAuditLimiter()
    ) {
        self.repository = repository
        self.accounts = accounts
        self.logger = logger
        self.refusals = refusals
    }

    /// Builds the module.
    ///
    /// - Parameters:
    ///   - source: The remote source, `nil` when sync is off.
    ///   - recorder: The status the source records.
    ///   - schemas: The schemas served now.
    ///   - minimumInterval: A sync asked for this soon after the last one ended shares its outcome.
    ///   - version: The daemon's version, for `status`.
    ///   - health: What is wrong with the daemon now, for `status`.
    ///   - now: The wall clock, seconds since the Unix epoch.
    public func build(
        source: (any RemoteSource)?,
        recorder: SyncStatusRecorder,
        schemas: @escaping @Sendable () -> [ModuleSchema],
        minimumInterval: Duration = .seconds(1),
        version: String,
        health: @escaping @Sendable () async -> DaemonHealth = { .healthy },
        now: @escaping @Sendable () -> Double
    ) -> Module {
        let interactor = SyncInteractor(
            source: source,
            recorder: recorder,
            schemas: schemas,
            repository: self.repository,
            accounts: self.accounts,
            minimumInterval: minimumInterval,
            clock: ContinuousClock(),
            refusals: self.refusals,
            health: health,
            logger: self.logger
        )
        return Module(
            presenter: SyncPresenter(interactor: interactor, version: version, now: now),
            interactor: interactor
        )
    }
}
