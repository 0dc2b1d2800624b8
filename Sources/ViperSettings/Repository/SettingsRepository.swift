/// The one entry point to stored settings: layered values per module, durable writes, revisions.
///
/// Implementations: `JSONFileRepository` (ViperStorage) and ``InMemorySettingsRepository``; both pass the
/// conformance suite in `ViperSettingsTesting`.
public protocol SettingsRepository: Sendable {
    /// The stored state of a module; ``ModuleState/empty`` when nothing was stored.
    func state(of module: String) async throws -> ModuleState

    /// Reads a module's state, lets `decide` compute a change, stores it durably and returns the state before and
    /// after.
    ///
    /// The read, the decision and the write are atomic with respect to other updates of the same module. When
    /// `decide` returns `nil`, nothing is written and `after` equals `before`. The call returns only once the change
    /// is durable; errors thrown by `decide` are rethrown unchanged.
    func update(
        module: String,
        _ decide: @Sendable (ModuleState) throws -> LocalChange?
    ) async throws -> (before: ModuleState, after: ModuleState)
}
