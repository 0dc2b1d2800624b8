public import Logging

/// Assembles one Settings module (Interactor, DataManager, Presenter) by constructor injection.
public struct SettingsModuleBuilder: Sendable {
    private let repository: any SettingsRepository
    private let accounts: any AccountDirectory
    private let logger: Logger
    private let remoteRevision: @Sendable () -> String?
    private let remoteRejections: @Sendable () -> [String]

    /// Creates a builder that gives every module the same repository, account directory, logger and view of the
    /// remote revision in force.
    public init(
        repository: any SettingsRepository,
        accounts: any AccountDirectory,
        logger: Logger,
        remoteRevision: @escaping @Sendable () -> String? = { nil },
        remoteRejections: @escaping @Sendable () -> [String] = { [] }
    ) {
        self.repository = repository
        self.accounts = accounts
        self.logger = logger
        self.remoteRevision = remoteRevision
        self.remoteRejections = remoteRejections
    }

    /// Records, after a reload of the schemas, the effective values each reloaded schema changed (see
    /// ``SettingsInteractor/adopt(previous:)``).
    public func adopt(schemas: [ModuleSchema], previous: [ModuleSchema]) async {
        let old = Dictionary(previous.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        for schema in schemas {
            guard let before = old[schema.name], before != schema else { continue }
            await SettingsInteractor(
                schema: schema,
                repository: self.repository,
                accounts: self.accounts,
                logger: self.logger
            ).adopt(previous: before)
        }
    }

    /// Builds the module described by `schema` and returns its Presenter.
    public func build(schema: ModuleSchema) -> any SettingsPresenterProtocol {
        let interactor = SettingsInteractor(
            schema: schema,
            repository: self.repository,
            accounts: self.accounts,
            logger: self.logger
        )
        return SettingsPresenter(
            interactor: interactor,
            dataManager: SettingsDataManager(),
            remoteRevision: self.remoteRevision,
            remoteRejections: self.remoteRejections
        )
    }
}
