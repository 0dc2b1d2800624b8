import Logging
import SettingsAPI
import Testing
import ViperSettings
import ViperTestSupport

@Suite("A schema change recorded as a change of its module")
struct SchemaAdoptTests {
    let repository = InMemorySettingsRepository()
    let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

    /// The network schema with the port's default changed to 3200.
    static var reloaded: ModuleSchema { get throws { try Fixtures.network(portDefault: 3200) } }

    func interactor(_ schema: ModuleSchema, over repository: any SettingsRepository) -> SettingsInteractor {
        SettingsInteractor(schema: schema, repository: repository, accounts: FakeAccounts(), logger: self.logger)
    }

    @Test("the same change compared again (its copy was not kept: a crash, a full disk) is not recorded twice")
    func recordedOnce() async throws {
        let interactor = self.interactor(try Self.reloaded, over: self.repository)
        #expect(await interactor.adopt(previous: Fixtures.network))
        let first = try await self.repository.state(of: "network")
        #expect(first.revision == 1)
        #expect(first.history.record(at: 1)?.changes.map(\.new) == [.int(3200)])
        #expect(await interactor.adopt(previous: Fixtures.network), "nothing left to tell counts as told")
        #expect(try await self.repository.state(of: "network").revision == 1, "told once")
    }

    @Test("each value a schema reload changes is an audit entry (SOURCE=schema); a layer change alone says so")
    func audited() async throws {
        let log = LogRecorder()
        let interactor = SettingsInteractor(
            schema: try Self.reloaded,
            repository: self.repository,
            accounts: FakeAccounts(),
            logger: log.logger
        )
        #expect(await interactor.adopt(previous: Fixtures.network))
        let entry = try #require(log.entries.first { $0.metadata["source"] == "schema" })
        #expect(
            entry.level == .notice && entry.message == "network.proxy.port changed from 3128 to 3200 by a schema change"
        )
        #expect(entry.metadata["old_value"] == "3128" && entry.metadata["new_value"] == "3200")
        // A local value equal to the value in force: the same value, now from the local layer.
        _ = try await interactor.set(path: "proxy.port", input: .text("3200"), caller: Fixtures.root)
        #expect(
            log.messages(at: .notice).last
                == "network.proxy.port is still 3200, now from the local layer (it was from the default layer)"
        )
    }

    @Test("a change after the schema's is not taken for it: the schema change compared again is recorded again")
    func otherChangeBetween() async throws {
        let interactor = self.interactor(try Self.reloaded, over: self.repository)
        #expect(await interactor.adopt(previous: Fixtures.network))
        _ = try await interactor.set(path: "proxy.mode", input: .text("manual"), caller: Fixtures.root)
        #expect(await interactor.adopt(previous: Fixtures.network))
        let state = try await self.repository.state(of: "network")
        #expect(state.revision == 3)
        #expect(state.history.record(at: 3)?.cause == .schema)
    }

    @Test("a change that cannot be stored is reported, and nothing moves")
    func notStored() async throws {
        let refusing = RefusingRepository(base: self.repository, refusing: "network")
        #expect(await !self.interactor(try Self.reloaded, over: refusing).adopt(previous: Fixtures.network))
        #expect(try await self.repository.state(of: "network").revision == 0)
        let builder = SettingsModuleBuilder(repository: refusing, accounts: FakeAccounts(), logger: self.logger)
        let untold = await builder.adopt(schemas: [try Self.reloaded], previous: [Fixtures.network])
        #expect(untold == ["network"])
        #expect(await builder.adopt(schemas: [Fixtures.network], previous: [Fixtures.network]).isEmpty)
    }
}
