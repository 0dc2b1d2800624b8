import Logging
import SettingsAPI
import Testing
import ViperSettings

@Suite("Router and DataManager")
struct SettingsRouterTests {
    func makeRouter() -> SettingsRouter {
        let builder = SettingsModuleBuilder(
            repository: InMemorySettingsRepository(),
            accounts: FakeAccounts(),
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
        )
        var display = Fixtures.networkJSON
        if case .object(var root) = display {
            root["module"] = "display"
            display = .object(root)
        }
        return SettingsRouter(presenters: [
            builder.build(schema: Fixtures.network), builder.build(schema: try! ModuleSchema(json: display)),
        ])
    }

    @Test("a key is routed to the module that owns it")
    func routesKeys() async {
        let router = self.makeRouter()
        let view = MockView()
        await router.handle(.set(key: "display.proxy.port", input: .text("9000")), caller: Fixtures.root, view: view)
        await router.handle(.get(key: "network.proxy.port"), caller: Fixtures.root, view: view)
        guard case .success(.value(let model)) = view.last else {
            Issue.record("expected a value")
            return
        }
        #expect(model.item.display == "3128")
    }

    @Test("unknown modules and keys get their own failures")
    func unknown() async {
        let router = self.makeRouter()
        let view = MockView()
        await router.handle(.get(key: "nope.a.b"), caller: Fixtures.root, view: view)
        #expect(view.last == .failure(.noSuchModule(module: "nope")))
        await router.handle(.get(key: "network.nope"), caller: Fixtures.root, view: view)
        #expect(view.last == .failure(.noSuchKey(key: "network.nope")))
        await router.handle(.showModule("nope"), caller: Fixtures.root, view: view)
        #expect(view.last == .failure(.noSuchModule(module: "nope")))
    }

    @Test("a module not served because its schema file was rejected is named with that file in NoSuchModule")
    func rejectedSchemaFile() async {
        let router = SettingsRouter(
            presenters: [],
            rejectedSchemaFile: { $0 == "t" ? "/m/t.json" : nil }
        )
        let view = MockView()
        await router.handle(.showModule("t"), caller: Fixtures.root, view: view)
        #expect(view.last == .failure(.noSuchModule(module: "t", schemaFile: "/m/t.json")))
        await router.handle(.get(key: "t.s.i"), caller: Fixtures.root, view: view)
        #expect(view.last == .failure(.noSuchModule(module: "t", schemaFile: "/m/t.json")))
        await router.handle(.showModule("t2"), caller: Fixtures.root, view: view)
        #expect(view.last == .failure(.noSuchModule(module: "t2")))
    }

    @Test("the module list is sorted and counts modified keys")
    func listsModules() async {
        let router = self.makeRouter()
        let view = MockView()
        await router.handle(.set(key: "network.proxy.port", input: .text("1")), caller: Fixtures.root, view: view)
        await router.handle(.listModules, caller: Fixtures.bob, view: view)
        guard case .success(.modules(let list)) = view.last else {
            Issue.record("expected modules")
            return
        }
        #expect(list.modules.map(\.module) == ["display", "network"])
        #expect(list.modules.map(\.modified) == [0, 1])
    }

    @Test("reset of a bare name resets the whole module")
    func resetModule() async {
        let router = self.makeRouter()
        let view = MockView()
        await router.handle(.set(key: "network.proxy.port", input: .text("1")), caller: Fixtures.root, view: view)
        await router.handle(.reset(target: "network"), caller: Fixtures.root, view: view)
        guard case .success(.reset(let model)) = view.last else {
            Issue.record("expected a reset")
            return
        }
        #expect(model.changed)
        #expect(model.items.count == 5)
    }

    @Test("the DataManager keeps schema order and drops empty sections")
    func dataManagerOrder() {
        let schema = Fixtures.network
        let state = ModuleState.empty
        let settings = [("dns", 1), ("proxy", 2), ("proxy", 0)].map { section, index in
            let item = schema.sections.first { $0.id == section }!.items[index]
            return ResolvedSetting(module: "network", sectionID: section, item: item, state: state)
        }
        let sections = SettingsDataManager().sections(of: schema, settings: settings)
        #expect(sections.map(\.id) == ["proxy", "dns"])
        #expect(sections[0].settings.map(\.item.id) == ["mode", "ignore"])
    }
}
