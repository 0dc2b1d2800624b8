import Logging
import SettingsAPI
import Synchronization
import Testing
import ViperSettings
import ViperTestSupport

@Suite("Sync Interactor, over the in-memory Repository")
struct SyncInteractorTests {
    let repository = InMemorySettingsRepository()
    let recorder = SyncStatusRecorder(source: "http://fleet.test/settings.json")

    var interactor: SyncInteractor { self.interactor(source: nil) }

    func interactor(
        source: (any RemoteSource)?,
        schemas: @escaping @Sendable () -> [ModuleSchema] = { [Fixtures.network] },
        minimumInterval: Duration = .seconds(3600),
        logger: Logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
    ) -> SyncInteractor {
        SyncInteractor(
            source: source,
            recorder: self.recorder,
            schemas: schemas,
            repository: self.repository,
            accounts: FakeAccounts(),
            minimumInterval: minimumInterval,
            logger: logger
        )
    }

    var settings: SettingsInteractor {
        SettingsInteractor(
            schema: Fixtures.network,
            repository: self.repository,
            accounts: FakeAccounts(),
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
        )
    }

    func snapshot(recommended: [String: JSONValue] = [:], mandatory: [String: JSONValue] = [:]) -> RemoteSnapshot {
        RemoteSnapshot(
            revision: "r1",
            modules: ["network": RemoteModuleValues(recommended: recommended, mandatory: mandatory)]
        )
    }

    @Test(
        "a lock that keeps the value moves the revision, as does any change of the remote layers; a new source revision alone does not"
    )
    func lockMovesRevision() async throws {
        let interactor = self.interactor
        await interactor.apply(self.snapshot(recommended: ["proxy.port": 8080]))
        let recommended = try await self.repository.state(of: "network").revision
        await interactor.apply(self.snapshot(mandatory: ["proxy.port": 8080]))
        #expect(try await self.repository.state(of: "network").revision == recommended + 1)
        #expect(try await self.settings.resolve(path: "proxy.port").setting.isLocked)
        await interactor.apply(
            RemoteSnapshot(revision: "r2", modules: ["network": RemoteModuleValues(mandatory: ["proxy.port": 8080])])
        )
        #expect(try await self.repository.state(of: "network").revision == recommended + 1)
    }

    @Test("recommended values apply under local ones; mandatory values win and lock")
    func layers() async throws {
        let interactor = self.interactor
        let mark = interactor.mark()
        await interactor.apply(self.snapshot(recommended: ["proxy.mode": "auto"], mandatory: ["proxy.port": 8080]))
        #expect(try await self.settings.resolve(path: "proxy.mode").setting.value == .string("auto"))
        let port = try await self.settings.resolve(path: "proxy.port")
        #expect(port.setting.value == .int(8080) && port.setting.isLocked)
        #expect(port.revision == 1)
        #expect(Set(interactor.changedKeys(since: mark)) == ["network.proxy.mode", "network.proxy.port"])
        await #expect(throws: SettingsFailure.self) {
            try await self.settings.set(path: "proxy.port", input: .text("1"), caller: Fixtures.root)
        }
        _ = try await self.settings.set(path: "proxy.mode", input: .text("none"), caller: Fixtures.root)
        #expect(try await self.settings.resolve(path: "proxy.mode").setting.winner == .local)
    }

    @Test("an invalid remote value is rejected alone and the last known good value stays")
    func rejectsOneByOne() async throws {
        let interactor = self.interactor
        await interactor.apply(self.snapshot(recommended: ["proxy.mode": "auto", "proxy.port": 8080]))
        await interactor.apply(self.snapshot(recommended: ["proxy.mode": "bogus", "proxy.port": 9090, "proxy.x": 1]))
        let state = try await self.repository.state(of: "network")
        #expect(state.recommended == ["proxy.mode": .string("auto"), "proxy.port": .int(9090)])
        let rejected = self.recorder.snapshot.rejected
        #expect(rejected.contains { $0.hasPrefix(#"network.proxy.mode: value "bogus": must be one of"#) })
        #expect(rejected.contains { $0.hasPrefix("network.proxy.x: no such key") })
    }

    @Test("a rejected remote value is shown in the reason, a long one cut to its start and its size")
    func rejectedValueShown() async throws {
        let interactor = self.interactor
        let long = String(repeating: "x", count: 5000)
        await interactor.apply(self.snapshot(recommended: ["proxy.port": .string(long), "proxy.mode": [1, 2]]))
        let rejected = self.recorder.snapshot.rejected
        #expect(rejected.contains("network.proxy.mode: value [1,2]: expected a string, found an array (recommended)"))
        let port = try #require(rejected.first { $0.hasPrefix("network.proxy.port: ") })
        #expect(
            port.hasPrefix(#"network.proxy.port: value ""# + String(repeating: "x", count: 99) + "… (5002 bytes): ")
        )
        #expect(port.utf8.count < 300)
    }

    @Test(
        "a reload that narrows a key: its cached fleet value is not counted in force and is listed as rejected, why"
    )
    func reloadNarrowsAKey() async throws {
        let schemas = Mutex([Fixtures.network])
        let interactor = self.interactor(source: nil, schemas: { schemas.withLock { $0 } })
        await interactor.apply(self.snapshot(recommended: ["proxy.mode": "auto"], mandatory: ["proxy.port": 8080]))
        #expect(self.recorder.snapshot.mandatoryInForce == 1)
        #expect(self.recorder.snapshot.rejected.isEmpty)
        // The reload: the port now takes 1...5000.
        let narrowed = Fixtures.networkJSON.serialized().replacing("65535", with: "5000")
        schemas.withLock { $0 = [try! ModuleSchema(json: try! JSONValue(parsing: narrowed))] }
        await interactor.refresh()
        #expect(self.recorder.snapshot.mandatoryInForce == 0)
        #expect(self.recorder.snapshot.recommendedInForce == 1)
        #expect(
            self.recorder.snapshot.rejected == [
                "network.proxy.port: value 8080: must be within 1..5000 (mandatory)"
            ],
            "the document still sends 8080: told once, as the source sent it"
        )
        // A restart: no snapshot yet, only the cache on disk.
        let restarted = self.interactor(source: nil, schemas: { schemas.withLock { $0 } })
        self.recorder.rejected([])
        await restarted.restoreRevision()
        #expect(
            self.recorder.snapshot.rejected == [
                "network.proxy.port: cached value 8080 no longer fits the schema (must be within 1..5000); ignored "
                    + "(mandatory)"
            ]
        )
        #expect(self.recorder.snapshot.mandatoryInForce == 0)
        // The schema widened again: the cached value is in force again, nothing is rejected.
        schemas.withLock { $0 = [Fixtures.network] }
        await restarted.refresh()
        #expect(self.recorder.snapshot.mandatoryInForce == 1)
        #expect(self.recorder.snapshot.rejected.isEmpty)
    }

    @Test(
        "a fleet value refused under a narrowed schema comes into force when a reload widens it again, without a new document"
    )
    func reloadWidensAKey() async throws {
        let narrowed = try ModuleSchema(
            json: try JSONValue(parsing: Fixtures.networkJSON.serialized().replacing("65535", with: "5000"))
        )
        let schemas = Mutex([narrowed])
        let interactor = self.interactor(source: nil, schemas: { schemas.withLock { $0 } })
        await interactor.reapply()  // before any document: nothing to apply, nothing breaks
        await interactor.apply(self.snapshot(mandatory: ["proxy.port": 4000]))
        await interactor.apply(self.snapshot(mandatory: ["proxy.port": 8080]))
        #expect(try await self.settings.resolve(path: "proxy.port").setting.value == .int(4000))
        #expect(
            self.recorder.snapshot.rejected == ["network.proxy.port: value 8080: must be within 1..5000 (mandatory)"]
        )
        let revision = try await self.repository.state(of: "network").revision
        // The reload: the port takes 1...65535 again, and the document still says 8080.
        schemas.withLock { $0 = [Fixtures.network] }
        let mark = interactor.mark()
        await interactor.reapply()
        let port = try await self.settings.resolve(path: "proxy.port")
        #expect(port.setting.value == .int(8080) && port.setting.isLocked)
        #expect(port.revision == revision + 1)
        #expect(self.recorder.snapshot.rejected.isEmpty)
        #expect(self.recorder.snapshot.mandatoryInForce == 1)
        #expect(interactor.changedKeys(since: mark) == ["network.proxy.port"])
        // Once more changes nothing.
        await interactor.reapply()
        #expect(try await self.repository.state(of: "network").revision == revision + 1)
    }

    @Test("status lists rejected values sorted by module and key, the same at every run")
    func rejectedSorted() async throws {
        let interactor = self.interactor
        var many: [String: JSONValue] = [:]
        for index in 0..<30 { many["proxy.unknown\(index)"] = 1 }
        many["dns.timeout"] = 99
        await interactor.apply(
            RemoteSnapshot(
                revision: "r1",
                modules: ["network": RemoteModuleValues(recommended: many), "zeta": .init(), "alpha": .init()],
                rejected: [RemoteRejection(module: "network", key: "viper/network/bogus/a.b", reason: "bad layer")]
            )
        )
        let rejected = self.recorder.snapshot.rejected
        #expect(rejected.count == 34)
        #expect(rejected.first == "alpha: no such module")
        #expect(rejected.last == "zeta: no such module")
        #expect(rejected[1].hasPrefix("network.dns.timeout: value 99: must be within "))
        #expect(rejected == rejected.sorted { $0.split(separator: ":")[0] < $1.split(separator: ":")[0] })
    }

    @Test("a rejected remote value is logged once, not with every document that still carries it; many are summed up")
    func rejectionsLoggedOnce() async throws {
        let lines = LogRecorder()
        let interactor = self.interactor(source: nil, logger: lines.logger)
        for _ in 0..<3 { await interactor.apply(self.snapshot(recommended: ["proxy.mode": "bogus"])) }
        #expect(lines.count { $0.hasPrefix("remote value rejected: network.proxy.mode") } == 1)
        var many: [String: JSONValue] = [:]
        for index in 0..<100 { many["proxy.unknown\(index)"] = 1 }
        await interactor.apply(self.snapshot(recommended: many))
        #expect(lines.count { $0.hasPrefix("remote value rejected: network.proxy.unknown") } == 20)
        #expect(lines.count { $0 == "80 more remote values rejected (settingsctl status lists them)" } == 1)
        #expect(self.recorder.snapshot.rejected.count == 100, "status lists them all")
    }

    @Test("a remote layer that changes under a local value that still wins is no audit entry; a lock is one")
    func auditOnlyWhatUsersSee() async throws {
        let lines = LogRecorder()
        let interactor = self.interactor(source: nil, logger: lines.logger)
        _ = try await self.settings.set(path: "proxy.mode", input: .text("manual"), caller: Fixtures.root)
        await interactor.apply(self.snapshot(recommended: ["proxy.mode": "none"]))
        #expect(lines.count { $0.contains("changed from") } == 0, "\(lines.entries.map(\.message))")
        await interactor.apply(self.snapshot(mandatory: ["proxy.mode": "manual"]))
        #expect(lines.count { $0.hasPrefix("network.proxy.mode changed from") } == 1, "the value is now locked")
    }

    @Test("a key removed remotely removes that layer value; an unknown module is reported")
    func removal() async throws {
        let interactor = self.interactor
        await interactor.apply(self.snapshot(recommended: ["proxy.mode": "auto"]))
        await interactor.apply(
            RemoteSnapshot(revision: "r2", modules: ["nope": RemoteModuleValues(recommended: ["a.b": 1])])
        )
        let state = try await self.repository.state(of: "network")
        #expect(state.recommended.isEmpty)
        #expect(state.revision == 2)
        #expect(self.recorder.snapshot.rejected == ["nope: no such module: its values a.b (recommended)"])
    }

    @Test("a snapshot that changes nothing writes nothing and keeps the revision")
    func noChange() async throws {
        let interactor = self.interactor
        await interactor.apply(self.snapshot(recommended: ["proxy.mode": "auto"]))
        let mark = interactor.mark()
        await interactor.apply(self.snapshot(recommended: ["proxy.mode": "auto"]))
        #expect(try await self.repository.state(of: "network").revision == 1)
        #expect(interactor.changedKeys(since: mark).isEmpty)
    }

    @Test("after a restart, the revision of the cached remote values is in status before the source answers")
    func restoresRevision() async throws {
        await self.interactor.apply(self.snapshot(recommended: ["proxy.mode": "auto"]))
        // Same values, a new revision: stored too, so that a restart names the revision in force.
        await self.interactor.apply(
            RemoteSnapshot(
                revision: "r2",
                modules: ["network": RemoteModuleValues(recommended: ["proxy.mode": "auto"])]
            )
        )
        let restarted = SyncStatusRecorder(source: "http://fleet.test/settings.json")
        let interactor = SyncInteractor(
            source: nil,
            recorder: restarted,
            schemas: { [Fixtures.network] },
            repository: self.repository,
            accounts: FakeAccounts(),
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
        )
        #expect(interactor.status().revision == nil)
        await interactor.restoreRevision()
        #expect(interactor.status().revision == "r2")
        #expect(interactor.status().state == .starting)
    }

    @Test(
        "sync turned off drops cached remote values; a module that refuses writes is named only when it holds some"
    )
    func syncOffDropsCachedValues() async throws {
        await self.interactor.apply(self.snapshot(recommended: ["proxy.port": 8080]))
        let display = try ModuleSchema(
            json: [
                "module": "display", "title": "Display",
                "sections": [
                    ["id": "output", "title": "Output", "items": [["id": "scale", "type": "double", "default": 1.0]]]
                ],
            ]
        )
        let recorder = LogRecorder()
        func dropping(over repository: any SettingsRepository) -> SyncInteractor {
            SyncInteractor(
                source: nil,
                recorder: SyncStatusRecorder(source: nil),
                schemas: { [Fixtures.network, display] },
                repository: repository,
                accounts: FakeAccounts(),
                logger: recorder.logger
            )
        }
        // `display` refuses writes and holds no remote value: nothing to drop, nothing to say.
        await dropping(over: RefusingRepository(base: self.repository, refusing: "display")).dropCachedValues()
        #expect(recorder.messages(at: .error).isEmpty, "\(recorder.messages(at: .error))")
        #expect(try await self.repository.state(of: "network").recommended.isEmpty)
        #expect(recorder.messages(at: .notice).contains { $0.contains("dropped the remote values of module network") })
        // Dropped, its remote revision kept: nothing left to drop, so a refusing module is not named at the next start.
        #expect(try await self.repository.state(of: "network").remoteRevision == "r1")
        await dropping(over: RefusingRepository(base: self.repository, refusing: "network")).dropCachedValues()
        #expect(recorder.messages(at: .error).isEmpty, "\(recorder.messages(at: .error))")
        // `network` holds one again and refuses writes: it says why it keeps it.
        await self.interactor.apply(self.snapshot(recommended: ["proxy.port": 8081]))
        await dropping(over: RefusingRepository(base: self.repository, refusing: "network")).dropCachedValues()
        #expect(
            recorder.messages(at: .error).contains {
                $0.contains("the remote values of module network could not be dropped")
            }
        )
        #expect(try await self.repository.state(of: "network").recommended == ["proxy.port": .int(8081)])
    }

    @Test("sync is for root and writers: others get PermissionDenied, groups count as the caller's credentials say")
    func syncNeedsAWriter() async throws {
        let source = CountingSource()
        let interactor = self.interactor(source: source)
        for caller in [Fixtures.bob, Caller(uid: 1002, gid: 1002, pid: 45)] {
            await #expect(throws: SettingsFailure.self) { try await interactor.sync(caller: caller) }
        }
        #expect(source.calls == 0)
        _ = try await interactor.sync(caller: Fixtures.carol)
        #expect(source.calls == 1)
    }

    @Test("concurrent syncs and syncs soon after share one attempt of the source")
    func syncsCoalesce() async throws {
        let source = CountingSource()
        let interactor = self.interactor(source: source)
        try await withThrowingTaskGroup(of: SyncOutcome.self) { group in
            for _ in 0..<50 { group.addTask { try await interactor.sync(caller: Fixtures.alice) } }
            for try await outcome in group { #expect(outcome.status.source == "http://fleet.test/settings.json") }
        }
        for _ in 0..<50 {
            let outcome = try await interactor.sync(caller: Fixtures.root)
            #expect(outcome.earlier, "no attempt was made for it: the sync before gave its outcome")
        }
        #expect(source.calls == 1)
    }

    @Test(
        "syncs whose attempt the stopping source never finished fail with SyncInterrupted, not the status before it"
    )
    func interruptedSyncsFail() async throws {
        let source = StoppingSource()
        let interactor = self.interactor(source: source)
        self.recorder.succeeded(revision: "r1", at: 1_000)
        let results = Task {
            await withTaskGroup(of: Result<SyncOutcome, SettingsFailure>.self) { group in
                for _ in 0..<20 {
                    group.addTask {
                        do throws(SettingsFailure) {
                            return .success(try await interactor.sync(caller: Fixtures.root))
                        } catch {
                            return .failure(error)
                        }
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
        }
        try #require(await Eventually.wait { source.calls >= 1 }, "a sync waits for the source")
        source.stop()
        let expected = SettingsFailure.syncInterrupted(.sourceStopped, source: "http://fleet.test/settings.json")
        for result in await results.value { #expect(result == .failure(expected)) }
        // Not shared as the outcome of a recent sync: the next one asks the source again, and hears it stopped.
        let calls = source.calls
        await #expect(throws: expected) { try await interactor.sync(caller: Fixtures.root) }
        #expect(source.calls == calls + 1)
    }

    @Test("with no minimum interval, a sync after the last one ended asks the source again")
    func syncAfterTheIntervalAsksAgain() async throws {
        let source = CountingSource()
        let interactor = self.interactor(source: source, minimumInterval: .zero)
        #expect(try await interactor.sync(caller: Fixtures.root).earlier == false)
        #expect(try await interactor.sync(caller: Fixtures.root).earlier == false)
        #expect(source.calls == 2)
    }
}

/// A source that counts ``syncNow()`` calls and never runs.
final class CountingSource: RemoteSource {
    private let count = Mutex(0)
    var calls: Int { self.count.withLock { $0 } }
    var endpointDescription: String { "http://fleet.test/settings.json" }
    func run(
        applying apply: nonisolated(nonsending) @escaping @Sendable (RemoteSnapshot) async -> RemoteApplyOutcome,
        status: SyncStatusRecorder
    ) async {}
    func syncNow() async throws(SyncInterruption) {
        self.count.withLock { $0 += 1 }
        await Task.yield()
    }
}

/// A source whose ``syncNow()`` calls wait until ``stop()``, then hear that it stopped, as do later ones.
final class StoppingSource: RemoteSource {
    private struct State {
        var calls = 0
        var stopped = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())
    var calls: Int { self.state.withLock { $0.calls } }
    var endpointDescription: String { "http://fleet.test/settings.json" }
    func run(
        applying apply: nonisolated(nonsending) @escaping @Sendable (RemoteSnapshot) async -> RemoteApplyOutcome,
        status: SyncStatusRecorder
    ) async {}

    func syncNow() async throws(SyncInterruption) {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let stopped = self.state.withLock { state in
                state.calls += 1
                if !state.stopped { state.waiters.append(continuation) }
                return state.stopped
            }
            if stopped { continuation.resume() }
        }
        throw .sourceStopped
    }

    /// Stops the source: every waiting call, and every later one, hears so.
    func stop() {
        let waiters = self.state.withLock { state in
            state.stopped = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
