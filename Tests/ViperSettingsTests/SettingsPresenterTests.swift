import SettingsAPI
import Synchronization
import Testing
import ViperSettings

/// A View that records what it was shown.
final class MockView: SettingsViewProtocol, SyncViewProtocol {
    let shown = Mutex<[Result<SettingsViewModel, SettingsErrorViewModel>]>([])
    let shownSync = Mutex<[Result<SyncViewModel, SettingsErrorViewModel>]>([])

    func display(_ viewModel: SettingsViewModel) async { self.shown.withLock { $0.append(.success(viewModel)) } }
    func display(_ viewModel: SyncViewModel) async { self.shownSync.withLock { $0.append(.success(viewModel)) } }
    func display(failure: SettingsErrorViewModel) async {
        self.shown.withLock { $0.append(.failure(failure)) }
        self.shownSync.withLock { $0.append(.failure(failure)) }
    }

    /// What a Settings Presenter showed last.
    var last: Result<SettingsViewModel, SettingsErrorViewModel>? { self.shown.withLock { $0.last } }
    /// What a Sync Presenter showed last.
    var lastSync: Result<SyncViewModel, SettingsErrorViewModel>? { self.shownSync.withLock { $0.last } }
}

/// An Interactor with canned answers that records the calls it gets.
final class MockInteractor: SettingsInteractorProtocol {
    let schema = Fixtures.network
    let state: ModuleState
    let calls = Mutex<[String]>([])
    let failure: SettingsFailure?

    init(state: ModuleState = .empty, failure: SettingsFailure? = nil) {
        self.state = state
        self.failure = failure
    }

    func resolveAll() async throws(SettingsFailure) -> (settings: [ResolvedSetting], revision: Int64) {
        self.calls.withLock { $0.append("resolveAll") }
        if let failure { throw failure }
        let settings = self.schema.sections.flatMap { section in
            section.items.map { ResolvedSetting(module: "network", sectionID: section.id, item: $0, state: self.state) }
        }
        return (settings, self.state.revision)
    }

    func resolve(path: String) async throws(SettingsFailure) -> (setting: ResolvedSetting, revision: Int64) {
        self.calls.withLock { $0.append("resolve \(path)") }
        if let failure { throw failure }
        let section = String(path.prefix { $0 != "." })
        return (
            ResolvedSetting(
                module: "network",
                sectionID: section,
                item: self.schema.item(at: path)!,
                state: self.state
            ),
            self.state.revision
        )
    }

    func set(path: String, input: SettingInput, caller: Caller) async throws(SettingsFailure) -> SetOutcome {
        self.calls.withLock { $0.append("set \(path) \(input) uid=\(caller.uid)") }
        throw self.failure ?? .storageFailure(module: "network", reason: "not canned")
    }

    func reset(path: String?, caller: Caller) async throws(SettingsFailure) -> ResetOutcome {
        self.calls.withLock { $0.append("reset \(path ?? "*")") }
        throw self.failure ?? .storageFailure(module: "network", reason: "not canned")
    }

    func dump() async throws(SettingsFailure) -> ModuleDump {
        self.calls.withLock { $0.append("dump") }
        if let failure { throw failure }
        return ModuleDump(
            local: self.state.local,
            settings: try await self.resolveAll().settings,
            revision: self.state.revision
        )
    }

    func load(_ request: LoadRequest, caller: Caller) async throws(SettingsFailure) -> LoadOutcome {
        self.calls.withLock { $0.append("load \(request.values.keys.sorted()) \(request.mode)") }
        throw self.failure ?? .storageFailure(module: "network", reason: "not canned")
    }
}

@Suite("Settings Presenter, with a mock Interactor and a mock View")
struct SettingsPresenterTests {
    let state = ModuleState(
        revision: 7,
        local: ["proxy.port": .int(8080)],
        mandatory: ["proxy.mode": .string("manual")]
    )

    @Test("show renders sections in schema order with display strings and markers")
    func show() async throws {
        let interactor = MockInteractor(state: self.state)
        let presenter = SettingsPresenter(interactor: interactor, dataManager: SettingsDataManager())
        let view = MockView()
        await presenter.handle(.showModule, caller: Fixtures.root, view: view)
        guard case .success(.module(let model)) = view.last else {
            Issue.record("expected a module, got \(String(describing: view.last))")
            return
        }
        #expect(model.revision == 7)
        #expect(model.sections.map(\.title) == ["Proxy", "DNS"])
        let items = model.sections[0].items
        #expect(items.map(\.key) == ["network.proxy.mode", "network.proxy.port", "network.proxy.ignore"])
        #expect(items[0].display == "manual" && items[0].locked && items[0].layer == .mandatory)
        #expect(items[1].display == "8080" && items[1].modified && !items[1].locked)
        #expect(items[1].defaultDisplay == "3128" && items[1].constraint == "1..65535")
        #expect(items[2].display == "localhost" && !items[2].modified)
        #expect(model.sections[1].items[1].display == "5.0")
    }

    @Test("get shows one item")
    func get() async {
        let interactor = MockInteractor(state: self.state)
        let presenter = SettingsPresenter(interactor: interactor, dataManager: SettingsDataManager())
        let view = MockView()
        await presenter.handle(.get(path: "proxy.port"), caller: Fixtures.bob, view: view)
        guard case .success(.value(let model)) = view.last else {
            Issue.record("expected a value")
            return
        }
        #expect(model.item.display == "8080")
        #expect(model.item.value == 8080)
        #expect(interactor.calls.withLock { $0 } == ["resolve proxy.port"])
    }

    @Test("explain lists every layer and the winner")
    func explain() async {
        let presenter = SettingsPresenter(
            interactor: MockInteractor(state: self.state),
            dataManager: SettingsDataManager()
        )
        let view = MockView()
        await presenter.handle(.explain(path: "proxy.mode"), caller: Fixtures.root, view: view)
        guard case .success(.explain(let model)) = view.last else {
            Issue.record("expected an explanation")
            return
        }
        #expect(model.layers.map(\.layer) == [.default, .recommended, .local, .mandatory])
        #expect(model.layers.map(\.present) == [true, false, false, true])
        #expect(model.layers[0].display == "none")
        #expect(model.winner == .mandatory)
        #expect(model.layers[3].source == "remote (mandatory, locked)")
        // A key no mandatory value locks: its empty mandatory layer does not say it is locked.
        await presenter.handle(.explain(path: "proxy.port"), caller: Fixtures.root, view: view)
        guard case .success(.explain(let unlocked)) = view.last else {
            Issue.record("expected an explanation")
            return
        }
        #expect(unlocked.layers[3].present == false)
        #expect(unlocked.layers[3].source == "remote (mandatory, would lock)")
    }

    @Test("explain names a stored value the schema rejects now (ignored), with its layer and the reason")
    func explainIgnored() async {
        let state = ModuleState(
            revision: 3,
            local: ["proxy.port": .int(70000)],
            recommended: ["proxy.port": .int(8080)]
        )
        let presenter = SettingsPresenter(interactor: MockInteractor(state: state), dataManager: SettingsDataManager())
        let view = MockView()
        await presenter.handle(.explain(path: "proxy.port"), caller: Fixtures.bob, view: view)
        guard case .success(.explain(let model)) = view.last else {
            Issue.record("expected an explanation")
            return
        }
        #expect(model.winner == .recommended && model.item.display == "8080")
        #expect(model.ignored == ["local 70000: must be within 1..65535"], "\(String(describing: model.ignored))")
        await presenter.handle(.explain(path: "proxy.mode"), caller: Fixtures.bob, view: view)
        guard case .success(.explain(let other)) = view.last else { return }
        #expect(other.ignored == nil)
        // A string is repeated as JSON, so that its blanks and quotes show.
        let text = ModuleState(revision: 4, local: ["proxy.port": .string("a b")])
        let again = SettingsPresenter(interactor: MockInteractor(state: text), dataManager: SettingsDataManager())
        await again.handle(.explain(path: "proxy.port"), caller: Fixtures.bob, view: view)
        guard case .success(.explain(let string)) = view.last else { return }
        #expect(string.ignored?.first?.hasPrefix(#"local "a b": "#) == true, "\(String(describing: string.ignored))")
    }

    @Test("a failure of the Interactor reaches the View as the declared error, its facts put in words")
    func failure() async {
        let interactor = MockInteractor(failure: .keyLocked(key: "network.proxy.mode", layer: .mandatory))
        let presenter = SettingsPresenter(interactor: interactor, dataManager: SettingsDataManager())
        let view = MockView()
        await presenter.handle(.set(path: "proxy.mode", input: .text("none")), caller: Fixtures.alice, view: view)
        #expect(
            view.last
                == .failure(
                    .keyLocked(key: "network.proxy.mode", source: "fleet policy (mandatory layer of the remote source)")
                )
        )
        #expect(interactor.calls.withLock { $0 } == ["set proxy.mode none uid=1000"])
    }

    @Test("a permission failure names root and the module's writers")
    func permissionWords() async {
        let writers = Writers(users: ["alice"], groups: ["netadmin"])
        let interactor = MockInteractor(failure: .permissionDenied(module: "network", uid: 1001, writers: writers))
        let presenter = SettingsPresenter(interactor: interactor, dataManager: SettingsDataManager())
        let view = MockView()
        await presenter.handle(.set(path: "proxy.mode", input: .text("none")), caller: Fixtures.bob, view: view)
        let reason = "only root, users alice, members of netadmin may write it"
        #expect(view.last == .failure(.permissionDenied(module: "network", uid: 1001, reason: reason)))
    }

    @Test("the summary counts keys and modified keys")
    func summary() async {
        let presenter = SettingsPresenter(
            interactor: MockInteractor(state: self.state),
            dataManager: SettingsDataManager()
        )
        let summary = await presenter.summary()
        #expect(
            summary
                == ModuleSummaryViewModel(
                    module: "network",
                    title: "Network",
                    description: "Proxy",
                    keys: 5,
                    modified: 2,
                    revision: 7
                )
        )
    }
}
