import SettingsAPI
import Synchronization
import Testing
import ViperSettings

/// A Sync Interactor with canned answers that records who asked to sync.
final class MockSyncInteractor: SyncInteractorProtocol {
    let canned: SyncStatus
    let failure: SettingsFailure?
    let callers = Mutex<[Caller]>([])
    let cannedHealth: DaemonHealth

    init(status: SyncStatus, failure: SettingsFailure? = nil, health: DaemonHealth = .healthy) {
        self.canned = status
        self.failure = failure
        self.cannedHealth = health
    }

    func status() -> SyncStatus { self.canned }
    func served() -> (modules: Int, keys: Int) { (5, 37) }
    func health() async -> DaemonHealth { self.cannedHealth }
    func sync(caller: Caller) async throws(SettingsFailure) -> SyncOutcome {
        self.callers.withLock { $0.append(caller) }
        if let failure { throw failure }
        return SyncOutcome(status: self.canned, changed: ["network.proxy.mode"])
    }
}

@Suite("Sync Presenter, with a mock Interactor and a mock View")
struct SyncPresenterTests {
    private static let failing = SyncStatus(
        state: .failing,
        source: "https://fleet.example/settings.json",
        lastSuccess: 100,
        revision: "r1",
        lastError: "HTTP 500 from https://fleet.example/settings.json",
        nextAttempt: 160
    )

    @Test("status shows what is served and the sync state by its name")
    func status() async {
        let view = MockView()
        let presenter = SyncPresenter(
            interactor: MockSyncInteractor(status: Self.failing),
            version: "1.0",
            now: { 120 }
        )
        await presenter.handle(.status, caller: Fixtures.bob, view: view)
        guard case .success(.status(let model)) = view.lastSync else {
            Issue.record("expected a status, got \(String(describing: view.lastSync))")
            return
        }
        #expect(model.modules == 5 && model.keys == 37 && model.version == "1.0")
        #expect(model.sync.state == "failing")
        #expect(model.sync.revision == "r1" && model.sync.nextAttempt == 160)
        #expect(model.sync.lastError == "HTTP 500 from https://fleet.example/settings.json")
        #expect(model.problems == nil, "a healthy daemon sends no problems member")
    }

    @Test("status says what is wrong with the daemon, in words, each problem once")
    func problems() async {
        let view = MockView()
        let health = DaemonHealth(
            unusableStateFiles: ["open /s/network.json: Permission denied"],
            failingWrites: ["cannot write /s/power.journal: No space left on device"],
            rejectedSchemaFiles: [SchemaError(file: "/m/power.json", path: "$", reason: "not valid JSON")],
            configurationReloadError:
                "/etc/viper-settingsd.conf: max-connections must be a number from 1 to 1000000, not 'zero'",

            schemasNotReloaded: true
        )
        let presenter = SyncPresenter(
            interactor: MockSyncInteractor(status: Self.failing, health: health),
            version: "1.0",
            now: { 120 }
        )
        await presenter.handle(.status, caller: Fixtures.bob, view: view)
        guard case .success(.status(let model)) = view.lastSync else {
            Issue.record("expected a status, got \(String(describing: view.lastSync))")
            return
        }
        #expect(
            model.problems == [
                "state files unusable: open /s/network.json: Permission denied; the modules concerned refuse writes",
                "writes failing: cannot write /s/power.journal: No space left on device; each write tries again",
                "schema file rejected: /m/power.json: $: not valid JSON",
                "configuration not reloaded, the previous configuration is in force: /etc/viper-settingsd.conf:"
                    + " max-connections must be a number from 1 to 1000000, not 'zero'",
                "schemas not reloaded: the last reload could not read the modules directory, the previous schemas are"
                    + " in force (the log says why)",
            ]
        )
    }

    @Test("status says when the modules directory holds no schema file: the reload refused, or no module served")
    func emptyModulesDirectory() async {
        for (refused, expected) in [
            (
                true,
                "schemas not reloaded: the modules directory /m holds no schema files (*.json), the previous schemas"
                    + " are in force"
            ),
            (false, "no module served: the modules directory /m holds no schema files (*.json)"),
        ] {
            let view = MockView()
            let health = DaemonHealth(schemasNotReloaded: refused, modulesDirectoryWithoutSchemas: "/m")
            let presenter = SyncPresenter(
                interactor: MockSyncInteractor(status: Self.failing, health: health),
                version: "1.0",
                now: { 120 }
            )
            await presenter.handle(.status, caller: Fixtures.bob, view: view)
            guard case .success(.status(let model)) = view.lastSync else {
                Issue.record("expected a status, got \(String(describing: view.lastSync))")
                return
            }
            #expect(model.problems == [expected])
        }
    }

    @Test("status lists the first 1000 rejected values and counts them all: a source can name 400,000 unknown keys")
    func manyRejected() async {
        var status = Self.failing
        status.rejected = (0..<400_000).map { "network.k\($0).x: no such key (mandatory)" }
        let view = MockView()
        let presenter = SyncPresenter(interactor: MockSyncInteractor(status: status), version: "1.0", now: { 120 })
        await presenter.handle(.status, caller: Fixtures.bob, view: view)
        guard case .success(.status(let model)) = view.lastSync else {
            Issue.record("expected a status, got \(String(describing: view.lastSync))")
            return
        }
        #expect(model.sync.rejected == Array(status.rejected.prefix(1000)))
        #expect(model.sync.rejectedCount == 400_000)
    }

    @Test("sync asks the Interactor on behalf of the caller and shows the changed keys")
    func sync() async {
        let view = MockView()
        let interactor = MockSyncInteractor(status: Self.failing)
        let presenter = SyncPresenter(interactor: interactor, version: "1.0", now: { 120 })
        await presenter.handle(.sync, caller: Fixtures.alice, view: view)
        #expect(interactor.callers.withLock { $0 } == [Fixtures.alice])
        guard case .success(.sync(let model)) = view.lastSync else {
            Issue.record("expected a sync result, got \(String(describing: view.lastSync))")
            return
        }
        #expect(model.changedKeys == ["network.proxy.mode"] && model.sync.state == "failing")
    }

    @Test("a failure of the Interactor reaches the View as the declared error, in words")
    func failure() async {
        let view = MockView()
        let denied = SettingsFailure.syncDenied(uid: 1001)
        let presenter = SyncPresenter(
            interactor: MockSyncInteractor(status: Self.failing, failure: denied),
            version: "1.0",
            now: { 120 }
        )
        await presenter.handle(.sync, caller: Fixtures.bob, view: view)
        guard case .failure(.permissionDenied(let module, let uid, let reason)) = view.lastSync else {
            Issue.record("expected PermissionDenied, got \(String(describing: view.lastSync))")
            return
        }
        #expect(module == "*" && uid == 1001)
        #expect(reason == "only root and the writers of a module (writers in its schema) may start a sync")
    }
}
