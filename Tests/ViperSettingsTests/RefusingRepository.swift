import ViperSettings

/// The in-memory Repository, with one module whose storage refuses writes, as a module with a state file of the
/// wrong kind does: ``writeRefusal(of:)`` says so, and a write fails.
struct RefusingRepository: SettingsRepository {
    let base: InMemorySettingsRepository
    let refusing: String

    struct Refusal: Error, CustomStringConvertible {
        var description: String { "NAME.journal is a directory" }
    }

    func state(of module: String) async throws -> ModuleState {
        try await self.base.state(of: module)
    }

    func writeRefusal(of module: String) async -> (any Error)? {
        module == self.refusing ? Refusal() : nil
    }

    func update(
        module: String,
        _ decide: @Sendable (ModuleState) throws -> LocalChange?
    ) async throws -> (before: ModuleState, after: ModuleState) {
        if module == self.refusing { throw Refusal() }
        return try await self.base.update(module: module, decide)
    }

    func updateRemote(
        module: String,
        _ decide: @Sendable (ModuleState) throws -> RemoteChange?
    ) async throws -> (before: ModuleState, after: ModuleState) {
        if module == self.refusing { throw Refusal() }
        return try await self.base.updateRemote(module: module, decide)
    }
}
