import Synchronization

/// A Repository that keeps everything in memory: for tests and for a daemon run without a state directory.
public final class InMemorySettingsRepository: SettingsRepository {
    private let states: Mutex<[String: ModuleState]>
    private let feed: ChangeFeed?

    /// Creates a repository holding `states` by module name, publishing change records to `feed`.
    public init(states: [String: ModuleState] = [:], feed: ChangeFeed? = nil) {
        self.states = Mutex(states)
        self.feed = feed
    }

    public func state(of module: String) async throws -> ModuleState {
        self.states.withLock { $0[module] ?? .empty }
    }

    public func update(
        module: String,
        _ decide: @Sendable (ModuleState) throws -> LocalChange?
    ) async throws -> (before: ModuleState, after: ModuleState) {
        try self.modify(module) { try decide($0)?.applied(to: $0) }
    }

    public func updateRemote(
        module: String,
        _ decide: @Sendable (ModuleState) throws -> RemoteChange?
    ) async throws -> (before: ModuleState, after: ModuleState) {
        try self.modify(module) { try decide($0)?.applied(to: $0) }
    }

    /// Reads, transforms and stores a module's state under one lock; `nil` from `transform` changes nothing.
    private func modify(
        _ module: String,
        _ transform: (ModuleState) throws -> ModuleState?
    ) throws -> (before: ModuleState, after: ModuleState) {
        try self.states.withLock { states in
            let before = states[module] ?? .empty
            guard let after = try transform(before) else { return (before, before) }
            states[module] = after
            if after.revision > before.revision, let record = after.history.record(at: after.revision) {
                // Under the lock, so records of a module are published in order.
                self.feed?.publish(module: module, records: [record])
            }
            return (before, after)
        }
    }
}
