import SettingsAPI
import SettingsCLI
import SettingsCLICore
import Testing

@Suite("VarlinkClient against a real Unix socket")
struct VarlinkClientTests {
    static func client(_ path: String) -> VarlinkClient {
        VarlinkClient(location: .init(path: path, origin: .option), timeoutSeconds: 5)
    }

    static func failure(replying reply: String) -> CLIFailure? {
        let server = FakeVarlinkServer(reply: reply)
        return #expect(throws: CLIFailure.self) {
            try Self.client(server.path).call(.get, ["key": "network.proxy.port"])
        }
    }

    @Test("sends the call with a NUL byte and returns the reply's parameters")
    func success() throws {
        let reply = JSONValue.object([
            "parameters": try JSONValueEncoder().encode(ValueViewModel(item: Fixtures.port, revision: 7))
        ])
        let server = FakeVarlinkServer(reply: reply.serialized())
        let parameters = try Self.client(server.path).call(.get, ["key": "network.proxy.port"])
        #expect(
            try JSONValueDecoder().decode(ValueViewModel.self, from: parameters)
                == ValueViewModel(item: Fixtures.port, revision: 7)
        )
        #expect(
            server.finish() == #"{"method":"io.viper.settings.Get","parameters":{"key":"network.proxy.port"}}"#
        )
    }

    @Test("reads a reply split across several writes")
    func splitReply() throws {
        let reply = JSONValue.object([
            "parameters": try JSONValueEncoder().encode(ValueViewModel(item: Fixtures.port, revision: 7))
        ])
        let server = FakeVarlinkServer(reply: reply.serialized(), pieces: 5)
        let parameters = try Self.client(server.path).call(.get, ["key": "network.proxy.port"])
        #expect(parameters["revision"] == 7)
    }

    @Test("a reply without parameters is an empty object")
    func emptyReply() throws {
        let server = FakeVarlinkServer(reply: "{}")
        #expect(try Self.client(server.path).call(.listModules, [:]) == [:])
    }

    @Test(
        "maps declared error replies to their exit status and message",
        arguments: [
            (
                #"{"error":"io.viper.settings.NoSuchKey","parameters":{"key":"network.proxy.nope"}}"#,
                SettingsCLICore.ExitStatus.notFound
            ),
            (#"{"error":"io.viper.settings.NoSuchModule","parameters":{"module":"nope"}}"#, .notFound),
            (
                #"{"error":"io.viper.settings.InvalidValue","parameters":{"key":"k","value":"x","reason":"r"}}"#,
                .invalidValue
            ),
            (#"{"error":"io.viper.settings.KeyLocked","parameters":{"key":"k","source":"fleet policy"}}"#, .locked),
            (
                #"{"error":"io.viper.settings.PermissionDenied","parameters":{"module":"m","uid":1000,"reason":"r"}}"#,
                .permissionDenied
            ),
            (
                #"{"error":"io.viper.settings.StorageFailure","parameters":{"module":"m","reason":"disk full"}}"#,
                .failure
            ),
        ]
    )
    func declaredErrors(reply: String, status: SettingsCLICore.ExitStatus) throws {
        let failure = try #require(Self.failure(replying: reply))
        #expect(failure.status == status)
        let name = try #require(JSONValue(parsing: reply)["error"]?.stringValue)
        let parameters = try #require(JSONValue(parsing: reply)["parameters"])
        let declared = try #require(SettingsErrorViewModel(errorName: name, parameters: parameters))
        #expect(failure.message == CLIFailure(declared).message)
        #expect(declared.parameters == parameters)
    }

    @Test("a value refused for its size is not repeated whole in the message, short ones are")
    func longInvalidValue() {
        let long = String(repeating: "x", count: 70_000)
        let refused = CLIFailure(.invalidValue(key: "k", value: long, reason: "too large"))
        #expect(refused.message.count < 300, "\(refused.message.count) characters")
        #expect(refused.message.contains("… (70000 bytes)") && refused.message.hasSuffix("for k: too large"))
        #expect(
            CLIFailure(.invalidValue(key: "k", value: "abc", reason: "r")).message == "invalid value 'abc' for k: r"
        )
    }

    @Test("org.varlink.service errors and unknown errors are other failures (1)")
    func otherErrors() throws {
        let missing = try #require(
            Self.failure(replying: #"{"error":"org.varlink.service.MethodNotFound","parameters":{"method":"x.Y"}}"#)
        )
        #expect(missing.status == .failure && missing.message.contains("x.Y"))
        let unknown = try #require(Self.failure(replying: #"{"error":"com.example.Odd"}"#))
        #expect(unknown.status == .failure && unknown.message.contains("com.example.Odd"))
    }

    @Test("a reply that is not JSON is an other failure with a clear message")
    func unreadableReply() throws {
        let failure = try #require(Self.failure(replying: "{\"parameters\": tru"))
        #expect(failure.status == .failure)
        #expect(failure.message.hasPrefix("could not read the reply of the settings daemon"))
    }

    @Test("a daemon that hangs up without answering is unreachable (3)")
    func closedWithoutReply() throws {
        let server = FakeVarlinkServer(pieces: [])
        let failure = #expect(throws: CLIFailure.self) { try Self.client(server.path).call(.listModules, [:]) }
        #expect(failure?.status == .unreachable)
    }

    @Test("a socket path with nothing behind it is unreachable (3), and the message says how to point elsewhere")
    func missingSocket() throws {
        let path = "/tmp/settingsctl-test-missing/io.viper.settings"
        let failure = #expect(throws: CLIFailure.self) { try Self.client(path).call(.listModules, [:]) }
        #expect(failure?.status == .unreachable)
        #expect(failure?.message.contains(path) == true)
        #expect(failure?.message.contains("--socket PATH") == true)
        #expect(failure?.message.contains("VIPER_SETTINGS_SOCKET") == true)
    }
}
