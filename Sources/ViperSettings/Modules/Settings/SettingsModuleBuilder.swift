public import Logging

/// Assembles one Settings module (Interactor, DataManager, Presenter) by constructor injection.
public struct SettingsModuleBuilder: Sendable {
    private let repository: any SettingsRepository
    private let accounts: any AccountDirectory
    private let logger: Logger
    private let remoteRevision: @Sendable () -> String?
    private let remoteRejections: @Sendable () -> [String]
    private let refusals: RefusalAuditLimiter

    /// Creates a builder that gives every module the same repository, account directory, logger, view of the
    /// remote revision in force, and bound on the audit entries of refused writes.
    public init(
        repository: any SettingsRepository,
        accounts: any AccountDirectory,
        logger: Logger,
        remoteRevision: @escaping @Sendable () -> String? = { nil },
        remoteRejections: @escaping @Sendable () -> [String] = { [] },
        refusals: RefusalAuditLimiter = RefusalAuditLimiter()
    ) {
        self.refusals = refusals
        self.repository = repository
        self.accounts = accounts
        self.logger = logger
        self.remoteRevision = remoteRevision
        self.remoteRejections = remoteRejections
    }

    /// Records the effective values a change of the schemas changed, as one change of each module (see
    /// ``SettingsInteractor/adopt(previous:)``), so that watchers hear of it like of any other: a module whose
    /// schema changed, a module no longer served (each of its keys removed), and, when `addedModulesAreNew`, a module
    /// `previous` lacks (each of its keys added). A module served now whose schema before is unknown gets a fresh
    /// start instead (see ``SettingsInteractor/restartHistory()``).
    ///
    /// - Parameters:
    ///   - schemas: The schemas served now.
    ///   - previous: Those served before: at a reload, the ones before it; at start, the ones the state directory
    ///     kept from the last run.
    ///   - unknownPrevious: Modules served before with a schema that is not known (at start: its kept copy cannot
    ///     be read); none of `previous`.
    ///   - addedModulesAreNew: True at a reload; false at start, where a module without a kept schema may simply
    ///     predate the keeping of schemas.
    /// - Returns: The modules whose change could not be stored (the disk failed): their watchers were not told.
    @discardableResult
    public func adopt(
        schemas: [ModuleSchema],
        previous: [ModuleSchema],
        unknownPrevious: Set<String> = [],
        addedModulesAreNew: Bool = true
    ) async -> Set<String> {
        let old = Dictionary(previous.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var untold: Set<String> = []
        for schema in schemas {
            if unknownPrevious.contains(schema.name) {
                if await !self.interactor(schema).restartHistory() { untold.insert(schema.name) }
                continue
            }
            guard let before = old[schema.name] ?? (addedModulesAreNew ? .empty(named: schema.name) : nil),
                before != schema
            else { continue }
            if await !self.interactor(schema).adopt(previous: before) { untold.insert(schema.name) }
        }
        let served = Set(schemas.map(\.name))
        for before in previous where !served.contains(before.name) {
            if await !self.interactor(.empty(named: before.name)).adopt(previous: before) { untold.insert(before.name) }
        }
        return untold
    }

    private func interactor(_ schema: ModuleSchema) -> SettingsInteractor {
        SettingsInteractor(
            schema: schema,
            repository: self.repository,
            accounts: self.accounts,
            refusals: self.refusals,
            logger: self.logger
        )
    }

    /// Builds the module described by `schema` and returns its Presenter.
    public func build(schema: ModuleSchema) -> any SettingsPresenterProtocol {
        let interactor = self.interactor(schema)
        return SettingsPresenter(
            interactor: interactor,
            dataManager: SettingsDataManager(),
            remoteRevision: self.remoteRevision,
            remoteRejections: self.remoteRejections
        )
    }
}
