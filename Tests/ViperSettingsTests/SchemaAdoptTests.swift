import Logging
import SettingsAPI
import Testing
import ViperSettings

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
