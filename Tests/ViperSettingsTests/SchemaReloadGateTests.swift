import Logging
import SettingsAPI
import Synchronization
import Testing
import ViperSettings

/// A schema reload and the calls that read or write settings, kept apart by the Router: a reload begins once the
/// calls in progress are done, calls that come meanwhile wait for it, and nothing is answered on the spot during it.
@Suite("Calls and schema reloads are kept apart", .timeLimit(.minutes(1)))
struct SchemaReloadGateTests {
    /// A View that holds the call in progress until it is let go.
    final class HeldView: SettingsViewProtocol, SyncViewProtocol {
        let held = Mutex<CheckedContinuation<Void, Never>?>(nil)
        let release = Mutex(false)
        let shown = Mutex<[Result<SettingsViewModel, SettingsErrorViewModel>]>([])

        func display(_ viewModel: SettingsViewModel) async {
            await withCheckedContinuation { continuation in
                let go = self.release.withLock { $0 }
                if go { continuation.resume() } else { self.held.withLock { $0 = continuation } }
            }
            self.shown.withLock { $0.append(.success(viewModel)) }
        }
        func display(_ viewModel: SyncViewModel) async {}
        func display(failure: SettingsErrorViewModel) async { self.shown.withLock { $0.append(.failure(failure)) } }

        var isHolding: Bool { self.held.withLock { $0 != nil } }
        func letGo() {
            self.release.withLock { $0 = true }
            self.held.withLock { $0.take() }?.resume()
        }
    }

    let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

    /// The in-memory Repository, whose states can be read without waiting (as the file Repository's published ones).
    struct ReadableNow: SettingsRepository {
        let base = InMemorySettingsRepository()

        func state(of module: String) async throws -> ModuleState { try await self.base.state(of: module) }
        func currentState(of module: String) -> ModuleState? { .empty }
        func update(
            module: String,
            _ decide: @Sendable (ModuleState) throws -> LocalChange?
        ) async throws -> (before: ModuleState, after: ModuleState) {
            try await self.base.update(module: module, decide)
        }
        func updateRemote(
            module: String,
            _ decide: @Sendable (ModuleState) throws -> RemoteChange?
        ) async throws -> (before: ModuleState, after: ModuleState) {
            try await self.base.updateRemote(module: module, decide)
        }
    }

    @Test("a reload waits for a call in progress; a call during a reload waits for it and sees the new schema")
    func keptApart() async throws {
        let reloads = SchemaReloadGate()
        let builder = SettingsModuleBuilder(
            repository: ReadableNow(),
            accounts: FakeAccounts(),
            logger: self.logger
        )
        let router = SettingsRouter(
            presenters: [builder.build(schema: Fixtures.network)],
            stateGeneration: { 0 },
            reloads: reloads
        )
        #expect(router.valueNow(key: "network.proxy.port")?.item.display == "3128", "answered on the spot")
        // A call in progress (its View holds it): the reload does not begin before it ends.
        let view = HeldView()
        async let first: Void = router.handle(.get(key: "network.proxy.port"), caller: Fixtures.root, view: view)
        while !view.isHolding { await Task.yield() }
        let began = Mutex(false)
        async let reload: Void = {
            await reloads.beginReload()
            began.withLock { $0 = true }
        }()
        while reloads.settledGeneration != nil { await Task.yield() }
        #expect(!began.withLock { $0 }, "the reload waits for the call in progress")
        #expect(router.valueNow(key: "network.proxy.port") == nil, "nothing answered on the spot during a reload")
        view.letGo()
        await first
        await reload
        #expect(began.withLock { $0 })
        // A call during the reload waits for its end, and is answered by the new schema.
        let later = HeldView()
        later.letGo()
        async let second: Void = router.handle(.get(key: "network.proxy.port"), caller: Fixtures.root, view: later)
        while reloads.waitingReaders == 0 { await Task.yield() }
        #expect(later.shown.withLock { $0.isEmpty })
        router.replace(presenters: [builder.build(schema: try Fixtures.network(portDefault: 3200))])
        reloads.endReload()
        await second
        guard case .success(.value(let model)) = later.shown.withLock({ $0.last }) else {
            Issue.record("expected the value")
            return
        }
        #expect(model.item.display == "3200")
        #expect(router.valueNow(key: "network.proxy.port")?.item.display == "3200", "answered on the spot again")
    }
}
