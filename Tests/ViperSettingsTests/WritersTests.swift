import SettingsAPI
import Testing
import ViperSettings

/// The `writers` of a schema: names or numeric ids, as systemd's `User=` and `chown` take them.
@Suite("Writers")
struct WritersTests {
    static func schema(writers: JSONValue) throws -> ModuleSchema {
        try ModuleSchema(json: [
            "module": "wr", "writers": writers,
            "sections": [["id": "s", "items": [["id": "i", "type": "bool", "default": true]]]],
        ])
    }

    @Test("a numeric entry of users is a uid, and of groups a gid")
    func numericIDs() throws {
        let schema = try Self.schema(writers: ["users": ["65534"], "groups": ["2000"]])
        let nobody = Caller(uid: 65534, gid: 65534, pid: 7)
        #expect(nobody.mayWrite(schema.writers, accounts: FakeAccounts()))
        #expect(!Fixtures.alice.mayWrite(schema.writers, accounts: FakeAccounts()))
        // carol is in gid 2000 (netadmin) as a supplementary group.
        #expect(Fixtures.carol.mayWrite(schema.writers, accounts: FakeAccounts()))
        #expect(!Caller(uid: 65533, gid: 2001, pid: 8).mayWrite(schema.writers, accounts: FakeAccounts()))
        // Names still work, and a name is never taken for a uid.
        let named = try Self.schema(writers: ["users": ["alice", "1001x"]])
        #expect(Fixtures.alice.mayWrite(named.writers, accounts: FakeAccounts()))
        #expect(!Fixtures.bob.mayWrite(named.writers, accounts: FakeAccounts()))
    }

    @Test("a name is compared by the id it names: a second name of a uid or gid names it too")
    func namesByID() throws {
        /// alice's uid has a second name, `toor`; netadmin's gid has a second name, `netops`.
        struct Aliases: AccountDirectory {
            func userID(named name: String) -> UInt32? { ["alice": 1000, "toor": 1000][name] }
            func groupID(named name: String) -> UInt32? { ["netadmin": 2000, "netops": 2000][name] }
        }
        let schema = try Self.schema(writers: ["users": ["toor"], "groups": ["netops"]])
        #expect(Fixtures.alice.mayWrite(schema.writers, accounts: Aliases()))
        #expect(Fixtures.carol.mayWrite(schema.writers, accounts: Aliases()), "carol is in gid 2000")
        #expect(!Fixtures.bob.mayWrite(schema.writers, accounts: Aliases()))
    }

    @Test("the user the daemon runs as writes every module, as root does; no one else gains anything")
    func serviceUser() throws {
        /// The accounts of a daemon run by bob (uid 1001).
        struct RunByBob: AccountDirectory {
            func userID(named name: String) -> UInt32? { FakeAccounts().userID(named: name) }
            func groupID(named name: String) -> UInt32? { FakeAccounts().groupID(named: name) }
            var serviceUID: UInt32? { 1001 }
        }
        let schema = try Self.schema(writers: ["users": ["alice"]])
        #expect(Fixtures.bob.mayWrite(schema.writers, accounts: RunByBob()))
        #expect(!Fixtures.bob.mayWrite(schema.writers, accounts: FakeAccounts()), "run by root: bob is nobody")
        #expect(!Fixtures.carol.mayWrite(schema.writers, accounts: RunByBob()))
        #expect(Fixtures.root.mayWrite(schema.writers, accounts: RunByBob()))
    }

    @Test("a number that is no id, or an empty entry, is rejected at load naming the entry")
    func invalidEntries() throws {
        let tooLarge = #expect(throws: SchemaError.self) {
            try Self.schema(writers: ["users": ["alice", "4294967295"]])
        }
        #expect(tooLarge?.path == "$.writers.users[1]")
        #expect(tooLarge?.reason == "4294967295 is not a valid uid: a number here is a uid, within 0..4294967294")
        let empty = #expect(throws: SchemaError.self) { try Self.schema(writers: ["groups": [""]]) }
        #expect(empty?.path == "$.writers.groups[0]")
        #expect(empty?.reason == "expected a group name or a numeric gid, found an empty string")
    }

    @Test("names the system does not know are listed for a warning; numeric ids and known names are not")
    func unknownNames() {
        let writers = Writers(users: ["alice", "alcie", "65534"], groups: ["netadmin", "nogroup", "2000"])
        let unknown = writers.unknownNames(accounts: FakeAccounts())
        #expect(unknown.users == ["alcie"])
        #expect(unknown.groups == ["nogroup"])
        #expect(
            writers.unknownNamesWarning(module: "network", accounts: FakeAccounts())
                == "module 'network' names writers this system does not know: user 'alcie', group 'nogroup'; these "
                + "entries let no one write until the accounts exist"
        )
        #expect(Fixtures.network.writers.unknownNamesWarning(module: "network", accounts: FakeAccounts()) == nil)
    }
}
