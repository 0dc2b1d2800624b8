import Logging
import SettingsAPI
import Testing
import ViperSettings

@Suite("Remote sync Interactor, over the in-memory Repository")
struct RemoteSyncInteractorTests {
    let repository = InMemorySettingsRepository()
    let recorder = SyncStatusRecorder(source: "http://fleet.test/settings.json")

    var interactor: RemoteSyncInteractor {
        RemoteSyncInteractor(
            schemas: { [Fixtures.network] },
            repository: self.repository,
            status: self.recorder,
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
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
        #expect(rejected.contains { $0.hasPrefix("network.proxy.mode: must be one of") })
        #expect(rejected.contains { $0.hasPrefix("network.proxy.x: no such key") })
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
        #expect(self.recorder.snapshot.rejected == ["nope: no such module"])
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
}
