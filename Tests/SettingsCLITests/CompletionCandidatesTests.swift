import ArgumentParser
import SettingsAPI
import SettingsCLI
import SettingsCLICore
import Testing

@Suite("Shell completion asks the daemon for modules, keys and values")
struct CompletionCandidatesTests {
    /// A `ListModules` reply with `network` and `display`.
    static let modulesReply = """
        {"parameters":{"modules":[\
        {"module":"network","title":"Network","description":"","keys":4,"modified":0,"revision":1},\
        {"module":"display","title":"Display","description":"","keys":2,"modified":0,"revision":1}]}}
        """

    /// A `ShowModule` reply for `network`, with a string with choices, a string, an int and a bool.
    static let networkReply = """
        {"parameters":{"module":"network","title":"Network","description":"","revision":1,"sections":[\
        {"id":"proxy","title":"Proxy","items":[\
        {"key":"network.proxy.mode","type":"string","constraint":"one of none, manual, auto"},\
        {"key":"network.proxy.host","type":"string"},\
        {"key":"network.proxy.port","type":"int","constraint":"1..65535"}]},\
        {"id":"dns","title":"DNS","items":[\
        {"key":"network.dns.secure","type":"bool","constraint":"true or false"}]}]}}
        """

    static func candidates(_ server: FakeVarlinkServer) -> CompletionCandidates {
        CompletionCandidates(client: VarlinkClient(location: .init(path: server.path, origin: .option)))
    }

    @Test("modules are the daemon's modules that begin with the word")
    func modules() {
        let server = FakeVarlinkServer(reply: Self.modulesReply)
        #expect(Self.candidates(server).modules(prefix: "n") == ["network"])
        #expect(server.finish().contains(#""method":"io.viper.settings.ListModules""#))
    }

    @Test("keys are the keys of the module the word names that begin with it")
    func keys() {
        let server = FakeVarlinkServer(reply: Self.networkReply)
        #expect(Self.candidates(server).keys(prefix: "network.proxy.p") == ["network.proxy.port"])
        let call = server.finish()
        #expect(call.contains(#""method":"io.viper.settings.ShowModule""#))
        #expect(call.contains(#""module":"network""#))
    }

    @Test("a key without a dot yet completes to the modules it can begin, each with its dot")
    func keyWithoutDot() {
        let server = FakeVarlinkServer(reply: Self.modulesReply)
        #expect(Self.candidates(server).keys(prefix: "") == ["network.", "display."])
    }

    @Test("reset completes modules as well as keys")
    func keysOrModules() {
        let server = FakeVarlinkServer(reply: Self.modulesReply)
        #expect(Self.candidates(server).keysOrModules(prefix: "") == ["network", "display"])
        let keys = FakeVarlinkServer(reply: Self.networkReply)
        #expect(Self.candidates(keys).keysOrModules(prefix: "network.d") == ["network.dns.secure"])
    }

    @Test("a string with choices completes to its choices, a bool to true and false, an int to nothing")
    func values() {
        let choices = FakeVarlinkServer(reply: Self.networkReply)
        #expect(Self.candidates(choices).values(key: "network.proxy.mode", prefix: "") == ["none", "manual", "auto"])
        let prefixed = FakeVarlinkServer(reply: Self.networkReply)
        #expect(Self.candidates(prefixed).values(key: "network.proxy.mode", prefix: "ma") == ["manual"])
        let bool = FakeVarlinkServer(reply: Self.networkReply)
        #expect(Self.candidates(bool).values(key: "network.dns.secure", prefix: "") == ["true", "false"])
        let int = FakeVarlinkServer(reply: Self.networkReply)
        #expect(Self.candidates(int).values(key: "network.proxy.port", prefix: "").isEmpty)
    }

    @Test("an error from the daemon, or no daemon at all, gives no candidates")
    func silentFailures() {
        let error = FakeVarlinkServer(
            reply: #"{"error":"io.viper.settings.ModuleNotFound","parameters":{"module":"nope"}}"#
        )
        #expect(Self.candidates(error).keys(prefix: "nope.").isEmpty)
        let nowhere = VarlinkClient(location: .init(path: "/nonexistent/io.viper.settings", origin: .option))
        #expect(CompletionCandidates(client: nowhere).modules(prefix: "").isEmpty)
        #expect(CompletionCandidates(client: nowhere).keys(prefix: "network.").isEmpty)
    }

    @Test("choices are read from a constraint of the form 'one of a, b, c' only")
    func choicesFromConstraint() {
        #expect(CompletionCandidates.choices(constraint: "one of none, manual, auto") == ["none", "manual", "auto"])
        #expect(CompletionCandidates.choices(constraint: "one of a, b, matching [a-z]+") == ["a", "b"])
        #expect(CompletionCandidates.choices(constraint: "1..65535") == nil)
        #expect(CompletionCandidates.choices(constraint: nil) == nil)
    }

    @Test("the command line's --socket and positional words are read as settingsctl reads them")
    func words() {
        #expect(CompletionWords.socket(in: ["settingsctl", "--socket", "/run/a", "get", ""]) == "/run/a")
        #expect(CompletionWords.socket(in: ["settingsctl", "--socket='/run/a b'", "get"]) == "/run/a b")
        #expect(CompletionWords.socket(in: ["settingsctl", "get", "x"]) == nil)
        let words = ["settingsctl", "--json", "--socket", "/run/a", "set", "network.proxy.mode", ""]
        #expect(CompletionWords.positionals(in: words, before: 6) == ["set", "network.proxy.mode"])
    }

    @Test("settingsctl ---completion (what the shell scripts run) prints the values of the key before the cursor")
    func throughArgumentParser() {
        let server = FakeVarlinkServer(reply: Self.networkReply)
        let words = ["settingsctl", "--socket", server.path, "set", "network.proxy.mode", "a"]
        let arguments = ["---completion", "set", "--", "positional@1", "5", "1"] + words
        let error = #expect(throws: (any Error).self) {
            _ = try SettingsCtl.parseAsRoot(try CommandLinePreflight.check(arguments))
        }
        #expect(error.map(SettingsCtl.exitStatus(for:)) == .success)
        #expect(error.map(SettingsCtl.message(for:)) == "auto")
    }
}
