public import Logging

/// Assembles the Watch module (Interactor, Presenter) by constructor injection.
public struct WatchModuleBuilder: Sendable {
    private let repository: any SettingsRepository
    private let feed: ChangeFeed
    private let history: String?
    private let logger: Logger

    /// Creates a builder over the repository whose durable changes `feed` publishes; `history` is the state
    /// directory's (``WatchCursor/history``), `nil` when it has none.
    public init(repository: any SettingsRepository, feed: ChangeFeed, history: String? = nil, logger: Logger) {
        self.repository = repository
        self.feed = feed
        self.history = history
        self.logger = logger
    }

    /// Builds the module; `schemas` gives the modules served, read at the start of each stream and whenever the
    /// current values are sent; `reloads` marks the reloads of them.
    public func build(
        schemas: @escaping @Sendable () -> [ModuleSchema],
        reloads: SchemaReloadGate = SchemaReloadGate()
    ) -> any WatchPresenterProtocol {
        WatchPresenter(
            interactor: WatchInteractor(
                repository: self.repository,
                feed: self.feed,
                schemas: schemas,
                reloads: reloads,
                history: self.history,
                logger: self.logger
            )
        )
    }
}
