import Logging
import SettingsAPI
import Testing
import ViperSettings
import ViperTestSupport

@Suite("Settings Interactor, over the in-memory Repository")
struct SettingsInteractorTests {
    let repository = InMemorySettingsRepository()

    var interactor: SettingsInteractor {
        SettingsInteractor(
            schema: Fixtures.network,
            repository: self.repository,
            accounts: FakeAccounts(),
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
        )
    }

    @Test("set stores a local value and bumps the revision")
    func setStores() async throws {
        let outcome = try await self.interactor.set(path: "proxy.port", input: .text("8080"), caller: Fixtures.root)
        #expect(outcome.changed)
        #expect(outcome.before.value == .int(3128))
        #expect(outcome.after.value == .int(8080))
        #expect(outcome.after.winner == .local)
        #expect(outcome.revision == 1)
        #expect(try await self.repository.state(of: "network").local == ["proxy.port": .int(8080)])
    }

    @Test("setting the value the local layer already holds changes nothing")
    func setNoOp() async throws {
        _ = try await self.interactor.set(path: "proxy.port", input: .json(8080), caller: Fixtures.root)
        let again = try await self.interactor.set(path: "proxy.port", input: .text("8080"), caller: Fixtures.root)
        #expect(!again.changed)
        #expect(again.revision == 1)
    }

    @Test("a value in another Unicode spelling is a change, stored as given, not the value already held")
    func setOtherSpelling() async throws {
        let composed: JSONValue = ["caf\u{E9}"]
        let decomposed: JSONValue = ["cafe\u{301}"]
        _ = try await self.interactor.set(path: "proxy.ignore", input: .json(composed), caller: Fixtures.root)
        let other = try await self.interactor.set(path: "proxy.ignore", input: .json(decomposed), caller: Fixtures.root)
        #expect(other.changed && other.revision == 2)
        let stored = try await self.repository.state(of: "network").local["proxy.ignore"]
        guard case .strings(let texts) = stored else {
            Issue.record("expected a list, found \(String(describing: stored))")
            return
        }
        #expect(texts.map { Array($0.utf8) } == [Array("cafe\u{301}".utf8)])
        let again = try await self.interactor.set(path: "proxy.ignore", input: .json(decomposed), caller: Fixtures.root)
        #expect(!again.changed && again.revision == 2)
    }

    @Test("pinning a key to the value it already resolves to is stored, and moves the revision: a dump shows it")
    func setEffectiveNoOp() async throws {
        let outcome = try await self.interactor.set(path: "proxy.port", input: .json(3128), caller: Fixtures.root)
        #expect(outcome.after.value == .int(3128) && outcome.after.winner == .local)
        #expect(outcome.revision == 1, "the stored values changed: a load --if-revision=0 must not overwrite it")
        #expect(try await self.repository.state(of: "network").local == ["proxy.port": .int(3128)])
        #expect(try await self.interactor.dump().revision == 1)
        let next = try await self.interactor.set(path: "proxy.port", input: .json(8080), caller: Fixtures.root)
        #expect(next.revision == 2)
    }

    @Test("a value outside the range is an invalid value naming key, value and range")
    func setInvalid() async throws {
        await #expect(
            throws: SettingsFailure.invalidValue(
                key: "network.proxy.port",
                value: "70000",
                reason: "must be within 1..65535"
            )
        ) {
            try await self.interactor.set(path: "proxy.port", input: .text("70000"), caller: Fixtures.root)
        }
        #expect(try await self.repository.state(of: "network") == .empty)
    }

    @Test("a typed value that does not fit is repeated as JSON: the string \"80\" is told from the number 80")
    func setInvalidTyped() async throws {
        await #expect(
            throws: SettingsFailure.invalidValue(
                key: "network.proxy.port",
                value: #""80""#,
                reason: "expected an integer, found a string"
            )
        ) {
            try await self.interactor.set(path: "proxy.port", input: .json("80"), caller: Fixtures.root)
        }
        await #expect(
            throws: SettingsFailure.invalidValue(
                key: "network.proxy.port",
                value: "0",
                reason: "must be within 1..65535"
            )
        ) {
            try await self.interactor.set(path: "proxy.port", input: .json(0), caller: Fixtures.root)
        }
    }

    @Test("an unknown key is reported with its full name")
    func unknownKey() async {
        await #expect(throws: SettingsFailure.noSuchKey(key: "network.nope")) {
            try await self.interactor.resolve(path: "nope")
        }
        await #expect(throws: SettingsFailure.noSuchKey(key: "network.proxy.nope")) {
            try await self.interactor.set(path: "proxy.nope", input: .text("1"), caller: Fixtures.root)
        }
    }

    @Test("a mandatory value locks the key against local writes; the refusal is an audit entry, as a denial is")
    func locked() async throws {
        let repository = InMemorySettingsRepository(states: [
            "network": ModuleState(mandatory: ["proxy.mode": .string("auto")])
        ])
        let log = LogRecorder()
        let interactor = SettingsInteractor(
            schema: Fixtures.network,
            repository: repository,
            accounts: FakeAccounts(),
            logger: log.logger
        )
        await #expect(
            throws: SettingsFailure.keyLocked(key: "network.proxy.mode", layer: .mandatory)
        ) {
            try await interactor.set(path: "proxy.mode", input: .text("none"), caller: Fixtures.alice)
        }
        let (setting, _) = try await interactor.resolve(path: "proxy.mode")
        #expect(setting.value == .string("auto"))
        #expect(setting.isLocked)
        let entry = try #require(log.entries.first { $0.level == .notice })
        #expect(entry.message == "locked by the fleet: uid 1000 may not set network.proxy.mode (mandatory)")
        #expect(entry.metadata["method"] == "Set" && entry.metadata["key"] == "network.proxy.mode")
        #expect(entry.metadata["client_uid"] == "1000" && entry.metadata["client_pid"] == "43")
    }

    @Test("a reset of a locked key is refused like a set, and so is a module reset that would remove one")
    func resetLocked() async throws {
        let repository = InMemorySettingsRepository(states: [
            "network": ModuleState(
                revision: 2,
                local: ["proxy.mode": .string("none"), "proxy.port": .int(8080)],
                mandatory: ["proxy.mode": .string("auto")]
            )
        ])
        let log = LogRecorder()
        let interactor = SettingsInteractor(
            schema: Fixtures.network,
            repository: repository,
            accounts: FakeAccounts(),
            logger: log.logger
        )
        await #expect(throws: SettingsFailure.keyLocked(key: "network.proxy.mode", layer: .mandatory)) {
            try await interactor.reset(path: "proxy.mode", caller: Fixtures.root)
        }
        await #expect(throws: SettingsFailure.keyLocked(key: "network.proxy.mode", layer: .mandatory)) {
            try await interactor.reset(path: nil, caller: Fixtures.root)
        }
        #expect(
            log.messages(at: .notice)
                == Array(repeating: "locked by the fleet: uid 0 may not reset network.proxy.mode (mandatory)", count: 2)
        )
        #expect(log.entries.filter { $0.level == .notice }.allSatisfy { $0.metadata["method"] == "Reset" })
        #expect(try await repository.state(of: "network").local.count == 2, "nothing was removed")
        let unlocked = try await interactor.reset(path: "proxy.port", caller: Fixtures.root)
        #expect(unlocked.changed)
        #expect(try await repository.state(of: "network").local == ["proxy.mode": .string("none")])
    }

    @Test("a reset of a locked key without a local value has nothing to reset: unchanged, not refused")
    func resetLockedWithoutLocalValue() async throws {
        // Another key of the module is locked with a local value: a reset of this one is not about it.
        let repository = InMemorySettingsRepository(states: [
            "network": ModuleState(
                revision: 2,
                local: ["proxy.port": .int(8080)],
                mandatory: ["proxy.mode": .string("auto"), "proxy.port": .int(3128)]
            )
        ])
        let interactor = SettingsInteractor(
            schema: Fixtures.network,
            repository: repository,
            accounts: FakeAccounts(),
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
        )
        let outcome = try await interactor.reset(path: "proxy.mode", caller: Fixtures.root)
        #expect(!outcome.changed)
        #expect(try await repository.state(of: "network").revision == 2)
        let unlocked = try await interactor.reset(path: "dns.cache", caller: Fixtures.root)
        #expect(!unlocked.changed, "an unlocked key without a local value, beside a locked key with one")
    }

    @Test("only root, named writers and members of writer groups may write")
    func authorization() async throws {
        await #expect(
            throws: SettingsFailure.permissionDenied(
                module: "network",
                uid: 1001,
                writers: Writers(users: ["alice"], groups: ["netadmin"])
            )
        ) {
            try await self.interactor.set(path: "proxy.port", input: .text("1"), caller: Fixtures.bob)
        }
        _ = try await self.interactor.set(path: "proxy.port", input: .text("2"), caller: Fixtures.alice)
        let outcome = try await self.interactor.set(path: "proxy.port", input: .text("3"), caller: Fixtures.carol)
        #expect(outcome.after.value == .int(3))
    }

    @Test("everyone may read")
    func reading() async throws {
        let (settings, revision) = try await self.interactor.resolveAll()
        #expect(settings.count == 5)
        #expect(revision == 0)
    }

    @Test("reset of a key returns to the default; reset of nothing changes nothing")
    func resetKey() async throws {
        _ = try await self.interactor.set(path: "proxy.port", input: .text("8080"), caller: Fixtures.root)
        let reset = try await self.interactor.reset(path: "proxy.port", caller: Fixtures.root)
        #expect(reset.changed)
        #expect(reset.after.map(\.value) == [.int(3128)])
        #expect(reset.revision == 2)
        let again = try await self.interactor.reset(path: "proxy.port", caller: Fixtures.root)
        #expect(!again.changed)
        #expect(again.revision == 2)
    }

    @Test("reset of a module removes every local value")
    func resetModule() async throws {
        _ = try await self.interactor.set(path: "proxy.port", input: .text("8080"), caller: Fixtures.root)
        _ = try await self.interactor.set(path: "dns.cache", input: .text("false"), caller: Fixtures.root)
        let reset = try await self.interactor.reset(path: nil, caller: Fixtures.root)
        #expect(reset.changed)
        #expect(reset.after.count == 5)
        #expect(try await self.repository.state(of: "network").local.isEmpty)
        #expect(reset.after.allSatisfy { !$0.isModified })
    }

    @Test("concurrent sets each bump the revision once")
    func concurrentSets() async throws {
        let interactor = self.interactor
        try await withThrowingTaskGroup(of: Void.self) { group in
            for port in 1...50 {
                group.addTask {
                    _ = try await interactor.set(
                        path: "proxy.port",
                        input: .json(.int(Int64(port))),
                        caller: Fixtures.root
                    )
                }
            }
            try await group.waitForAll()
        }
        #expect(try await self.repository.state(of: "network").revision == 50)
    }

    @Test("a stored value that no longer fits the schema is ignored")
    func staleStoredValue() async throws {
        let repository = InMemorySettingsRepository(states: [
            "network": ModuleState(local: ["proxy.port": .string("x")])
        ])
        let interactor = SettingsInteractor(
            schema: Fixtures.network,
            repository: repository,
            accounts: FakeAccounts(),
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
        )
        let (setting, _) = try await interactor.resolve(path: "proxy.port")
        #expect(setting.value == .int(3128))
        #expect(setting.winner == .default)
    }
}
