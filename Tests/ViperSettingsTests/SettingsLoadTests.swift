import Logging
import SettingsAPI
import Testing
import ViperSettings
import ViperTestSupport

/// Load and dump in the Settings Interactor, over the in-memory Repository; and the Transfer Presenter that checks
/// every module of a load before it writes any.
@Suite("Load and dump: each module all or nothing, one revision, compare-and-set")
struct SettingsLoadTests {
    let feed = ChangeFeed()
    let repository: InMemorySettingsRepository
    /// What the test logged (a new one for each test).
    let log = LogRecorder()
    var logger: Logger { self.log.logger }

    init() {
        self.repository = InMemorySettingsRepository(
            states: [
                "network": ModuleState(revision: 4, local: ["proxy.port": .int(8080), "dns.cache": .bool(false)])
            ],
            feed: self.feed
        )
    }

    var interactor: SettingsInteractor {
        SettingsInteractor(
            schema: Fixtures.network,
            repository: self.repository,
            accounts: FakeAccounts(),
            logger: self.logger
        )
    }

    var presenter: SettingsPresenter {
        SettingsPresenter(interactor: self.interactor, dataManager: SettingsDataManager())
    }

    @Test("the values are stored at once, the revision moves on once, and watchers get one record")
    func applyOnce() async throws {
        let subscription = self.feed.subscribe(modules: ["network"])
        let outcome = try await self.interactor.load(
            LoadRequest(values: ["proxy.port": 3129, "proxy.mode": "auto", "dns.cache": false], mode: .apply),
            caller: Fixtures.root
        )
        #expect(outcome.revision == 5)
        #expect(outcome.changes.map(\.after.key.description) == ["network.proxy.mode", "network.proxy.port"])
        let state = try await self.repository.state(of: "network")
        #expect(state.local == ["proxy.port": .int(3129), "proxy.mode": .string("auto"), "dns.cache": .bool(false)])
        guard case .records(let published) = await subscription.next() else {
            Issue.record("no record published")
            return
        }
        #expect(published.count == 1 && published[0].record.revision == 5)
        #expect(published[0].record.changes.map(\.path) == ["proxy.mode", "proxy.port"])
        #expect(published[0].record.cause == .client(uid: 0, pid: 42))
    }

    @Test("an unknown key or an invalid value refuses the whole load, and each is named")
    func refused() async throws {
        let request = LoadRequest(
            values: ["proxy.port": 0, "proxy.mode": "auto", "proxy.nosuchthing": 1],
            mode: .apply
        )
        await #expect(
            throws: SettingsFailure.loadRefused(problems: [
                .noSuchKey(key: "network.proxy.nosuchthing"),
                .invalidValue(key: "network.proxy.port", value: "0", reason: "must be within 1..65535"),
            ])
        ) {
            try await self.interactor.load(request, caller: Fixtures.root)
        }
        #expect(try await self.repository.state(of: "network").local["proxy.mode"] == nil)
        #expect(try await self.repository.state(of: "network").revision == 4)
    }

    @Test(
        "a section given as a key, a key in other letter case, with blanks, with its module in front or mistyped is named as such"
    )
    func nearKeys() async throws {
        let request = LoadRequest(
            values: [
                "proxy": ["port": 80], "Proxy.Port ": 81, "proxy.nosuchthing": 1, "network.proxy.port": 82,
                "proxy.prot": 83, "port": 84,
            ],
            mode: .preview
        )
        let outcome = try await self.interactor.load(request, caller: Fixtures.root)
        #expect(
            outcome.problems == [
                .noSuchKey(key: "network.Proxy.Port ", meant: "network.proxy.port"),
                .noSuchKey(key: "network.network.proxy.port", meant: "network.proxy.port"),
                .noSuchKey(key: "network.port", meant: "network.proxy.port"),
                .noSuchKey(key: "network.proxy", section: true),
                .noSuchKey(key: "network.proxy.nosuchthing"),
                .noSuchKey(key: "network.proxy.prot", meant: "network.proxy.port"),
            ]
        )
        let reasons = outcome.problems.map { SettingsFormatter.problem($0).reason }
        #expect(reasons[0] == "the schema of network has no such key; did you mean 'network.proxy.port'?")
        #expect(reasons[1] == "the schema of network has no such key; did you mean 'network.proxy.port'?")
        #expect(reasons[2] == "the schema of network has no such key; did you mean 'network.proxy.port'?")
        #expect(reasons[3].contains("'proxy' is a section: name each of its keys in full (\"proxy.ITEM\": value)"))
        #expect(reasons[4] == "the schema of network has no such key")
        #expect(reasons[5] == "the schema of network has no such key; did you mean 'network.proxy.port'?")
    }

    @Test("a file of many unknown keys lists each, the first 64 with the key they most likely meant (the rest: none)")
    func manyUnknownKeys() async throws {
        // proxy.por0 … proxy.por99: each a typo of proxy.port (one or two edits).
        var values: [String: JSONValue] = [:]
        for index in 0..<100 { values["proxy.por\(index)"] = 1 }
        let outcome = try await self.interactor.load(LoadRequest(values: values, mode: .preview), caller: Fixtures.root)
        #expect(outcome.problems.count == 100)
        let meant = outcome.problems.map { problem -> String? in
            guard case .noSuchKey(_, _, let meant) = problem else { return "?" }
            return meant
        }
        #expect(meant.prefix(64).allSatisfy { $0 == "network.proxy.port" }, "\(meant)")
        #expect(meant.dropFirst(64).allSatisfy { $0 == nil }, "\(meant)")
    }

    @Test("a preview writes nothing, lists the problems, and anyone may ask; applying needs a writer")
    func preview() async throws {
        let request = LoadRequest(values: ["proxy.port": 9000, "proxy.nosuchthing": 1], mode: .preview)
        let outcome = try await self.interactor.load(request, caller: Fixtures.bob)
        #expect(outcome.problems == [.noSuchKey(key: "network.proxy.nosuchthing")])
        #expect(outcome.changes.map { $0.after.value } == [.int(9000)])
        #expect(outcome.revision == 4)
        #expect(try await self.repository.state(of: "network").local["proxy.port"] == .int(8080))
        // Verifying lists a caller who may not write among the problems; applying refuses the load with them.
        var verify = request
        verify.mode = .verify
        let denied = LoadProblem.permissionDenied(module: "network", uid: 1001, writers: Fixtures.network.writers)
        let verified = try await self.interactor.load(verify, caller: Fixtures.bob)
        #expect(verified.problems == [denied, .noSuchKey(key: "network.proxy.nosuchthing")])
        var apply = request
        apply.mode = .apply
        await #expect(
            throws: SettingsFailure.loadRefused(problems: [denied, .noSuchKey(key: "network.proxy.nosuchthing")])
        ) {
            try await self.interactor.load(apply, caller: Fixtures.bob)
        }
        #expect(try await self.repository.state(of: "network").local["proxy.port"] == .int(8080))
    }

    @Test("a locked key refuses the load, unless the file holds the local value it already has")
    func locked() async throws {
        let repository = InMemorySettingsRepository(
            states: [
                "network": ModuleState(
                    revision: 1,
                    local: ["proxy.port": .int(8080)],
                    mandatory: ["proxy.port": .int(1)]
                )
            ]
        )
        let interactor = SettingsInteractor(
            schema: Fixtures.network,
            repository: repository,
            accounts: FakeAccounts(),
            logger: self.logger
        )
        let same = try await interactor.load(
            LoadRequest(values: ["proxy.port": 8080], mode: .apply),
            caller: Fixtures.root
        )
        #expect(same.changes.isEmpty && same.revision == 1)
        await #expect(
            throws: SettingsFailure.loadRefused(problems: [.keyLocked(key: "network.proxy.port", layer: .mandatory)])
        ) {
            try await interactor.load(LoadRequest(values: ["proxy.port": 9], mode: .apply), caller: Fixtures.root)
        }
        await #expect(
            throws: SettingsFailure.loadRefused(problems: [.keyLocked(key: "network.proxy.port", layer: .mandatory)]),
            "replace would remove the locked key's local value"
        ) {
            try await interactor.load(
                LoadRequest(values: ["proxy.mode": "manual"], replace: true, mode: .apply),
                caller: Fixtures.root
            )
        }
        #expect(try await repository.state(of: "network").local == ["proxy.port": .int(8080)])
        let refusals = self.log.entries.filter { $0.level == .notice }
        #expect(
            refusals.map(\.message)
                == Array(repeating: "locked by the fleet: uid 0 may not load network.proxy.port (mandatory)", count: 2)
        )
        #expect(refusals.allSatisfy { $0.metadata["method"] == "Load" })
        // A load of several modules verifies each first, and is refused there: audited as well; a dry run is not.
        let verified = try await interactor.load(
            LoadRequest(values: ["proxy.port": 9], mode: .verify),
            caller: Fixtures.root
        )
        #expect(verified.problems == [.keyLocked(key: "network.proxy.port", layer: .mandatory)])
        #expect(self.log.entries.filter { $0.level == .notice }.count == 3)
        _ = try await interactor.load(LoadRequest(values: ["proxy.port": 9], mode: .preview), caller: Fixtures.root)
        #expect(self.log.entries.filter { $0.level == .notice }.count == 3, "a dry run writes nothing: no refusal")
    }

    @Test("ifRevision is a compare-and-set; replace removes the local values the file lacks")
    func compareAndSet() async throws {
        await #expect(throws: SettingsFailure.revisionMismatch(module: "network", expected: 3, actual: 4)) {
            try await self.interactor.load(LoadRequest(values: [:], ifRevision: 3, mode: .apply), caller: Fixtures.root)
        }
        let outcome = try await self.interactor.load(
            LoadRequest(values: ["proxy.mode": "manual"], replace: true, ifRevision: 4, mode: .apply),
            caller: Fixtures.root
        )
        #expect(try await self.repository.state(of: "network").local == ["proxy.mode": .string("manual")])
        #expect(outcome.revision == 5)
        #expect(Set(outcome.changes.map(\.after.key.path)) == ["proxy.mode", "proxy.port", "dns.cache"])
    }

    @Test("replace keeps a stored value the schema does not accept now, or of a key it no longer has: not in a dump")
    func replaceKeepsHiddenValues() async throws {
        let repository = InMemorySettingsRepository(
            states: [
                "network": ModuleState(
                    revision: 4,
                    local: ["proxy.port": .int(99_999), "proxy.gone": .int(1), "dns.cache": .bool(false)]
                )
            ]
        )
        let lines = LogRecorder()
        let interactor = SettingsInteractor(
            schema: Fixtures.network,
            repository: repository,
            accounts: FakeAccounts(),
            logger: lines.logger
        )
        let dump = try await interactor.dump()
        #expect(dump.local == ["dns.cache": .bool(false)], "a dump holds only the values in effect")
        let values = dump.local.mapValues(\.json)
        let preview = try await interactor.load(
            LoadRequest(values: values, replace: true, mode: .preview),
            caller: Fixtures.root
        )
        #expect(preview.changes.isEmpty)
        let outcome = try await interactor.load(
            LoadRequest(values: values, replace: true, mode: .apply),
            caller: Fixtures.root
        )
        #expect(outcome.changes.isEmpty && outcome.revision == 4)
        #expect(
            try await repository.state(of: "network").local.keys.sorted() == ["dns.cache", "proxy.gone", "proxy.port"]
        )
        _ = try await interactor.load(LoadRequest(values: [:], replace: true, mode: .apply), caller: Fixtures.root)
        #expect(try await repository.state(of: "network").local.keys.sorted() == ["proxy.gone", "proxy.port"])
        #expect(lines.count { $0.contains("removed its stored local value") } == 0)
        // A reset of the module removes them too, as asked, and says so: they were not in effect, so no value changed.
        _ = try await interactor.reset(path: nil, caller: Fixtures.root)
        #expect(try await repository.state(of: "network").local.isEmpty)
        #expect(
            lines.messages(at: .notice).filter { $0.contains("removed its stored") }.sorted() == [
                "network.proxy.gone: removed its stored local value 1, which was not in effect (the schema does not accept it)",
                "network.proxy.port: removed its stored local value 99999, which was not in effect (the schema does not accept it)",
            ]
        )
    }

    @Test("a reset of a key the schema no longer has removes its stored value, though another key is locked")
    func resetOfARemovedKey() async throws {
        let repository = InMemorySettingsRepository(
            states: [
                "network": ModuleState(
                    revision: 4,
                    local: ["proxy.gone": .int(1), "proxy.port": .int(8080)],
                    mandatory: ["proxy.port": .int(3128)]
                )
            ]
        )
        let lines = LogRecorder()
        let interactor = SettingsInteractor(
            schema: Fixtures.network,
            repository: repository,
            accounts: FakeAccounts(),
            logger: lines.logger
        )
        // The module cannot be reset whole: a locked key keeps its local value.
        await #expect(throws: SettingsFailure.self) { try await interactor.reset(path: nil, caller: Fixtures.root) }
        let outcome = try await interactor.reset(path: "proxy.gone", caller: Fixtures.root)
        #expect(outcome.changed && outcome.after.isEmpty && outcome.revision == 5)
        #expect(try await repository.state(of: "network").local == ["proxy.port": .int(8080)])
        #expect(
            lines.messages(at: .notice).filter { $0.contains("removed its stored") } == [
                "network.proxy.gone: removed its stored local value 1, which was not in effect (the schema does not accept it)"
            ]
        )
        // Without a stored value, it is no key at all.
        await #expect(throws: SettingsFailure.noSuchKey(key: "network.proxy.gone")) {
            try await interactor.reset(path: "proxy.gone", caller: Fixtures.root)
        }
        // Only the module's writers may.
        await #expect(throws: SettingsFailure.self) {
            try await interactor.reset(path: "proxy.port", caller: Fixtures.bob)
        }
    }

    @Test("a value pinned to the one in effect since a dump moves the revision: a load --if-revision of it is refused")
    func compareAndSetSeesPins() async throws {
        let dump = try await self.interactor.dump()
        _ = try await self.interactor.set(path: "proxy.mode", input: .text("none"), caller: Fixtures.root)
        await #expect(throws: SettingsFailure.revisionMismatch(module: "network", expected: 4, actual: 5)) {
            try await self.interactor.load(
                LoadRequest(
                    values: dump.local.mapValues(\.json),
                    replace: true,
                    ifRevision: dump.revision,
                    mode: .apply
                ),
                caller: Fixtures.root
            )
        }
        #expect(try await self.repository.state(of: "network").local["proxy.mode"] == .string("none"), "kept")
    }

    @Test("dump gives the local values; the Transfer Presenter refuses a load naming an unknown module")
    func dumpAndTransfer() async throws {
        let dump = try await self.presenter.dump(effective: true)
        #expect(dump.values == ["proxy.port": 8080, "dns.cache": false] && dump.revision == 4)
        #expect(dump.effective?["proxy.mode"] == EffectiveValueViewModel(value: "none", layer: .default))
        let view = MockView()
        await TransferPresenter(presenters: ["network": self.presenter]).load(
            ["network": ["proxy.port": 1], "bogus": [:]],
            replace: false,
            ifRevision: [:],
            dryRun: false,
            caller: Fixtures.root,
            on: view
        )
        guard case .failure(.loadRefused(let problems)) = view.last else {
            Issue.record("expected LoadRefused, got \(String(describing: view.last))")
            return
        }
        #expect(problems.map(\.key) == ["bogus"])
        #expect(try await self.repository.state(of: "network").local["proxy.port"] == .int(8080))
    }

    @Test("a dump naming a module many times dumps it once: one call cannot make the daemon repeat the work")
    func dumpOfRepeatedModule() async {
        let interactor = MockInteractor(state: ModuleState(revision: 3, local: ["proxy.port": .int(8080)]))
        let presenter = SettingsPresenter(interactor: interactor, dataManager: SettingsDataManager())
        let view = MockView()
        await TransferPresenter(presenters: ["network": presenter]).dump(
            modules: Array(repeating: "network", count: 10_000),
            effective: true,
            on: view
        )
        guard case .success(.dump(let model)) = view.last else {
            Issue.record("expected a dump, got \(String(describing: view.last))")
            return
        }
        #expect(Array(model.modules.keys) == ["network"] && model.modules["network"]?.revision == 3)
        #expect(interactor.calls.withLock { $0.filter { $0 == "dump" }.count } == 1)

        // An unknown module among repeats is still NoSuchModule.
        await TransferPresenter(presenters: ["network": presenter]).dump(
            modules: ["network", "network", "bogus", "network"],
            effective: false,
            on: view
        )
        #expect(view.last == .failure(.noSuchModule(module: "bogus")))
    }

    @Test("a module the daemon does not serve is named with the one it most likely meant, and problems come by key")
    func mistypedModule() async throws {
        let view = MockView()
        await TransferPresenter(presenters: ["network": self.presenter]).load(
            ["netwrk": ["proxy.port": 80], "zzz": [:], "network": ["proxy.port": 0, "dns.cache": "x", "a.b": 1]],
            replace: false,
            ifRevision: [:],
            dryRun: true,
            caller: Fixtures.root,
            on: view
        )
        guard case .success(.load(let result)) = view.last else {
            Issue.record("expected a dry run's result, got \(String(describing: view.last))")
            return
        }
        #expect(
            result.problems.map(\.key) == ["network.a.b", "network.dns.cache", "network.proxy.port", "netwrk", "zzz"]
        )
        #expect(result.problems.first { $0.key == "netwrk" }?.reason == "no such module; did you mean 'network'?")
        #expect(result.problems.first { $0.key == "zzz" }?.reason == "no such module")
    }

    @Test("a non-writer's load lists every problem of the file, the module it may not write among them")
    func nonWriterSeesEveryProblem() async throws {
        let view = MockView()
        await TransferPresenter(presenters: ["network": self.presenter]).load(
            ["network": ["proxy.port": "80", "proxy.nosuchthing": 1, "dns.cache": "true"], "bogus": [:]],
            replace: false,
            ifRevision: ["network": 99],
            dryRun: false,
            caller: Fixtures.bob,
            on: view
        )
        guard case .failure(.loadRefused(let problems)) = view.last else {
            Issue.record("expected LoadRefused, got \(String(describing: view.last))")
            return
        }
        #expect(
            problems == [
                LoadProblemViewModel(key: "bogus", problem: .noSuchModule, reason: "no such module"),
                LoadProblemViewModel(
                    key: "network",
                    problem: .permissionDenied,
                    reason: "permission denied for uid 1001: only root, users alice, members of netadmin may write it"
                ),
                LoadProblemViewModel(
                    key: "network.dns.cache",
                    problem: .invalidValue,
                    reason: #""true": expected a boolean, found a string"#
                ),
                LoadProblemViewModel(
                    key: "network.proxy.nosuchthing",
                    problem: .noSuchKey,
                    reason: "the schema of network has no such key"
                ),
                LoadProblemViewModel(
                    key: "network.proxy.port",
                    problem: .invalidValue,
                    reason: #""80": expected an integer, found a string"#
                ),
            ],
            "the revision of a module the caller may not write is not compared: the permission is what to fix"
        )
        #expect(try await self.repository.state(of: "network").revision == 4)
        // Alone, the permission is the one problem: LoadRefused still, listing it (exit status 7 in settingsctl).
        await TransferPresenter(presenters: ["network": self.presenter]).load(
            ["network": ["proxy.port": 80]],
            replace: false,
            ifRevision: [:],
            dryRun: false,
            caller: Fixtures.bob,
            on: view
        )
        guard case .failure(.loadRefused(let alone)) = view.last else {
            Issue.record("expected LoadRefused, got \(String(describing: view.last))")
            return
        }
        #expect(alone.map(\.problem) == [.permissionDenied])
        #expect(try await self.repository.state(of: "network").local["proxy.port"] == .int(8080))
    }

    @Test("a value in a problem is repeated as JSON, and a whole number beyond 64 bits in digits, named as such")
    func problemValuesAsGiven() async throws {
        let request = LoadRequest(
            values: ["proxy.port": try JSONValue(parsing: "9223372036854775808"), "dns.cache": "true"],
            mode: .verify
        )
        let (_, problems) = try await self.presenter.load(request, caller: Fixtures.root)
        #expect(
            problems.map(\.reason) == [
                #""true": expected a boolean, found a string"#,
                "9223372036854775808: is beyond the 64-bit integer range; must be within 1..65535",
            ]
        )
    }

    @Test("a module whose storage already refuses writes stops a load of several modules before any is written")
    func storageRefusalBeforeAnyWrite() async throws {
        let extra = try ModuleSchema(
            json: [
                "module": "extra", "title": "Extra",
                "sections": [
                    ["id": "s", "title": "S", "items": [["id": "a", "title": "A", "type": "int", "default": 7]]]
                ],
            ]
        )
        let repository = RefusingRepository(base: self.repository, refusing: "network")
        func presenter(_ schema: ModuleSchema) -> SettingsPresenter {
            SettingsPresenter(
                interactor: SettingsInteractor(
                    schema: schema,
                    repository: repository,
                    accounts: FakeAccounts(),
                    logger: self.logger
                ),
                dataManager: SettingsDataManager()
            )
        }
        let view = MockView()
        // "extra" comes first: without the check before writing, it would be loaded before network fails.
        await TransferPresenter(presenters: ["extra": presenter(extra), "network": presenter(Fixtures.network)]).load(
            ["extra": ["s.a": 8], "network": ["proxy.port": 3129]],
            replace: false,
            ifRevision: [:],
            dryRun: false,
            caller: Fixtures.root,
            on: view
        )
        #expect(
            view.last == .failure(.storageFailure(module: "network", reason: "NAME.journal is a directory")),
            "\(String(describing: view.last))"
        )
        #expect(try await self.repository.state(of: "extra").revision == 0, "nothing written")
        #expect(try await self.repository.state(of: "network").local["proxy.port"] == .int(8080))
        // A dry run says the same: it does not report as loadable what the load would refuse.
        let preview = MockView()
        await TransferPresenter(presenters: ["extra": presenter(extra), "network": presenter(Fixtures.network)]).load(
            ["extra": ["s.a": 8], "network": ["proxy.port": 3129]],
            replace: false,
            ifRevision: [:],
            dryRun: true,
            caller: Fixtures.alice,
            on: preview
        )
        #expect(preview.last == .failure(.storageFailure(module: "network", reason: "NAME.journal is a directory")))
    }

    @Test("a module that fails to store after others were loaded says which were: a partial load is not none")
    func partialLoadIsSaid() {
        let loaded = [ModuleLoadViewModel(module: "display", revision: 3, changed: true, changes: [])]
        let failure = SettingsErrorViewModel.storageFailure(module: "power", reason: "the disk is full")
        #expect(
            TransferPresenter.after(loaded, failure)
                == .storageFailure(
                    module: "power",
                    reason: "the disk is full; the modules before it in the file were loaded: display (revision 3)"
                )
        )
        #expect(TransferPresenter.after([], failure) == failure)
        // What changed in the modules loaded, the first 20 changes; a module that did not change says so.
        let scale = LoadChangeViewModel(
            key: "display.output.scale",
            old: 1.75,
            oldDisplay: "1.75",
            oldLayer: .local,
            value: 2.0,
            display: "2.0",
            layer: .local
        )
        let many = ModuleLoadViewModel(
            module: "display",
            revision: 4,
            changed: true,
            changes: Array(repeating: scale, count: 25)
        )
        let same = ModuleLoadViewModel(module: "network", revision: 9, changed: false, changes: [])
        guard case .storageFailure(_, let reason) = TransferPresenter.after([many, same], failure) else {
            Issue.record("expected a storage failure")
            return
        }
        #expect(
            reason
                == "the disk is full; the modules before it in the file were loaded: display (revision 4: "
                + Array(repeating: "display.output.scale 1.75 -> 2.0", count: 20).joined(separator: ", ")
                + ", 5 more), network (no change)"
        )
    }
}
