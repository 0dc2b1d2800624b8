/// The one entry point to stored settings: layered values per module, durable writes, revisions.
///
/// Implementations: `JSONFileRepository` (ViperStorage) and ``InMemorySettingsRepository``; both pass the
/// conformance suite in `ViperSettingsTesting`.
public protocol SettingsRepository: Sendable {
    /// The stored state of a module; ``ModuleState/empty`` when nothing was stored.
    func state(of module: String) async throws -> ModuleState

    /// What ``state(of:)`` would return, when it is at hand without waiting (the module is loaded and in memory);
    /// `nil` otherwise. For answering reads on the spot; the default is `nil`.
    func currentState(of module: String) -> ModuleState?

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

    /// Why ``update(module:_:)`` of the module would be refused now, found without writing: its files cannot be
    /// used, its revision leaves no room. `nil` when nothing known stands in the way of a write, which may still
    /// fail (a full disk is found out only by writing). For a change of several modules, so that one refusing
    /// writes is found before any is written. The default is `nil`.
    func writeRefusal(of module: String) async -> (any Error)?

    /// Why the module's stored values cannot all be read now (its state files could not be used: what
    /// ``state(of:)`` returns is what could be read, defaults for the rest); `nil` when they can. A watcher is not
    /// told such values: an applier would write them into system files. The default is `nil`.
    func unusableState(of module: String) async -> (any Error)?

    /// Like ``update(module:_:)`` for the remote layers: replaces a module's recommended and mandatory values, as
    /// `decide` computes them from the current state, durably (the remote layers are a cache that survives a
    /// restart without network). `nil` writes nothing.
    func updateRemote(
        module: String,
        _ decide: @Sendable (ModuleState) throws -> RemoteChange?
    ) async throws -> (before: ModuleState, after: ModuleState)
}

extension SettingsRepository {
    public func currentState(of module: String) -> ModuleState? { nil }

    public func writeRefusal(of module: String) async -> (any Error)? { nil }

    public func unusableState(of module: String) async -> (any Error)? { nil }
}
