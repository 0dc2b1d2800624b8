import SettingsAPI
import SettingsCLI
import SettingsCLICore
import Testing

@Suite("SettingsCtl: parsing, exit statuses and whole commands")
struct SettingsCtlTests {
    static func status(_ arguments: [String]) -> SettingsCLICore.ExitStatus {
        do {
            _ = try SettingsCtl.parseAsRoot(try CommandLinePreflight.check(arguments))
            return .success
        } catch {
            return SettingsCtl.exitStatus(for: error)
        }
    }

    @Test(
        "usage errors exit with 2, not ArgumentParser's 64",
        arguments: [
            ["get"], ["bogus"], ["get", "a", "b"], ["--frobnicate", "modules"], ["set", "k"],
            ["--socket", "", "modules"], [], ["help", "bogus"], ["bogus", "x"], ["--socket=", "modules"],
            ["--json"], ["load", "--if-revision", "network=02", "f"], ["load", "--if-revision", "network=+2", "f"],
            ["load", "--if-revision", "network=-1", "f"], ["load", "--if-revision", "network=", "f"],
            ["load", "--if-revision", "=2", "f"], ["load", "--if-revision", "network=99999999999999999999", "f"],
            ["load", "--if-revision", "network=1", "--if-revision", "network=2", "f"],
        ]
    )
    func usageErrors(arguments: [String]) {
        #expect(Self.status(arguments) == .usage)
    }

    @Test("a newline in a file name, a cursor or --if-revision is shown escaped: one error is one line")
    func newlinesEscaped() throws {
        #expect {
            try DumpFile.read(path: "/nonexistent/x\nFAKE: ok")
        } throws: { error in
            let text = "\(error)"
            return text.contains("cannot open /nonexistent/x\\nFAKE: ok") && !text.contains("\n")
        }
        #expect(throws: (any Error).self) {
            try SettingsCtl.parseAsRoot(["load", "--if-revision", "net\nwork", "f"])
        }
        do {
            _ = try SettingsCtl.parseAsRoot(["load", "--if-revision", "net\nwork", "f"])
        } catch {
            let message = SettingsCtl.fullMessage(for: error)
            #expect(message.contains("net\\nwork") && !message.contains("net\nwork"), "\(message)")
        }
    }

    @Test("the closest name is a typo's: a few edits, letter case and swapped neighbours counted as one")
    func closestName() {
        let keys = ["network.proxy.port", "network.proxy.host", "network.proxy.mode", "network.dns.cache"]
        #expect(ClosestName.closest(to: "network.proxy.prot", in: keys) == "network.proxy.port")
        #expect(ClosestName.closest(to: "Network.Proxy.Mode", in: keys) == "network.proxy.mode")
        #expect(ClosestName.closest(to: "network.dns.cahce", in: keys) == "network.dns.cache")
        #expect(ClosestName.closest(to: "network.zzz.qqq", in: keys) == nil)
        #expect(ClosestName.closest(to: "netwrok", in: ["network", "display", "power"]) == "network")
        #expect(ClosestName.closest(to: "x", in: ["network"]) == nil)
        #expect(ClosestName.closest(to: "", in: ["network"]) == nil)
        #expect(
            ClosestName.editDistance("potr", "port") == 1 && ClosestName.editDistance("kitten", "sitting") == 3
        )
    }

    @Test("--if-revision takes a module and a revision in digits, 0 included")
    func ifRevision() throws {
        for (argument, revision) in [("network=0", Int64(0)), ("network=42", 42)] {
            let parsed = try SettingsCtl.parseAsRoot(["load", "--if-revision", argument, "f"])
            let command = try #require(parsed as? LoadCommand)
            #expect(try command.revisions() == ["network": revision])
        }
    }

    @Test(
        "help, version and completions exit with 0",
        arguments: [
            ["--help"], ["--version"], ["get", "--help"], ["help", "set"], ["--generate-completion-script", "bash"],
            ["--experimental-dump-help"],
        ]
    )
    func helpAndVersion(arguments: [String]) {
        #expect(Self.status(arguments) == .success)
    }

    @Test("failures keep their status and are printed as settingsctl: MESSAGE")
    func failures() {
        let locked = CLIFailure(SettingsErrorViewModel.keyLocked(key: "k", source: "fleet"))
        #expect(SettingsCtl.exitStatus(for: locked) == .locked)
        #expect(SettingsCtl.message(for: locked) == "settingsctl: k is locked by fleet; local changes are refused")
        #expect(SettingsCtl.exitStatus(for: CLIFailure(.unreachable, "gone")) == .unreachable)
        #expect(SettingsCtl.message(for: CLIFailure(.unreachable, "gone")) == "settingsctl: gone")
    }

    @Test("a refused sync says so plainly, not 'may not change module *'; a refused write names its module")
    func permissionDenied() {
        let sync = CLIFailure(
            SettingsErrorViewModel.permissionDenied(module: "*", uid: 65534, reason: "only root and the writers may")
        )
        #expect(sync.status == .permissionDenied)
        #expect(sync.message == "permission denied: uid 65534 may not start a sync: only root and the writers may")
        let write = CLIFailure(SettingsErrorViewModel.permissionDenied(module: "network", uid: 1001, reason: "no"))
        #expect(write.message == "permission denied: uid 1001 may not change module 'network': no")
    }

    @Test("a connection refused over a limit is a sentence naming the limit, with exit 3, not the raw error")
    func tooManyConnections() {
        let perUID = CLIFailure(
            errorName: "io.viper.settings.TooManyConnections",
            parameters: ["limit": "max-connections-per-uid", "maximum": 128]
        )
        #expect(perUID.status == .unreachable)
        #expect(
            perUID.message
                == "the settings daemon refuses more connections: max-connections-per-uid (128) reached; close some of"
                + " this user's connections to it (a settingsctl watch, a client left running), or raise"
                + " max-connections-per-uid in viper-settingsd.conf; then try again"
        )
        #expect(perUID.errorName == "io.viper.settings.TooManyConnections", "--json keeps the error")
        let total = CLIFailure(
            errorName: "io.viper.settings.TooManyConnections",
            parameters: ["limit": "max-connections", "maximum": 32]
        )
        #expect(total.status == .unreachable)
        #expect(total.message.hasPrefix("the settings daemon refuses more connections: max-connections (32) reached;"))
        let applier = CLIFailure(
            errorName: "org.varlink.service.TooManyConnections",
            parameters: ["limit": "max-connections-per-uid", "maximum": 16],
            peer: .applier
        )
        #expect(applier.status == .unreachable)
        #expect(
            applier.message
                == "the applier (viper-settings-apply) refuses more connections: max-connections-per-uid (16) reached;"
                + " try again when other connections to it have closed"
        )
        #expect(!perUID.message.contains("{"), "no raw JSON: \(perUID.message)")
    }

    @Test("a value or a file's key in a failure is shown with its control characters escaped, not sent")
    func escapedFailure() {
        let failure = CLIFailure(
            SettingsErrorViewModel.loadRefused(problems: [
                .init(key: "network.\u{1B}[2Jx", problem: .noSuchKey, reason: "no such key"),
                .init(
                    key: "network.proxy.host",
                    problem: .invalidValue,
                    reason: "invalid value 'a\u{1B}[31mRED\u{0}b\u{9B}'"
                ),
                .init(key: "m\u{202E}", problem: .noSuchModule, reason: "no such module"),
            ])
        )
        #expect(
            failure.report
                == "settingsctl: nothing was loaded:\n  network.\\u{1b}[2Jx: no such key\n"
                + "  network.proxy.host: invalid value 'a\\u{1b}[31mRED\\u{0}b\\u{9b}'\n"
                + "  m\\u{202e}: no such module"
        )
        // A value is shown on one line, whatever it holds.
        let value = CLIFailure(SettingsErrorViewModel.invalidValue(key: "k.s.t", value: "a\nb\u{FEFF}", reason: "bad"))
        #expect(value.report == "settingsctl: invalid value 'a\\nb\\u{feff}' for k.s.t: bad")
    }

    @Test("--help lists every exit status and the examples")
    func helpText() {
        let help = SettingsCtl.helpMessage(columns: 200)
        for status in SettingsCLICore.ExitStatus.allCases {
            #expect(help.contains("\(status.rawValue)  \(status.meaning)"))
        }
        #expect(help.contains("settingsctl --json show network"))
    }

    @Test(
        "set takes a negative number as a value, without --",
        arguments: [["set", "k", "-1"], ["set", "k", "-0.5", "--json"]]
    )
    func negativeNumber(arguments: [String]) throws {
        let parsed = try SettingsCtl.parseAsRoot(try CommandLinePreflight.check(arguments))
        let command = try #require(parsed as? SetCommand)
        #expect(command.key == "k" && command.value == arguments[2])
        #expect(command.global.json == arguments.contains("--json"))
    }

    @Test("an extra argument after a negative value is the one named unexpected, not the value")
    func extraAfterNegativeNumber() throws {
        #expect(try CommandLinePreflight.check(["set", "k", "-5", "extra"]) == ["set", "k", "--", "-5", "extra"])
        #expect(
            try CommandLinePreflight.check(["set", "k", "-5", "--json", "extra", "--", "more"])
                == ["set", "k", "--json", "--", "-5", "extra", "more"]
        )
        for arguments in [
            ["set", "k", "-5", "extra"], ["set", "k", "-5", "extra", "--json"], ["set", "k", "-5", "-6"],
        ] {
            do {
                _ = try SettingsCtl.parseAsRoot(try CommandLinePreflight.check(arguments))
                Issue.record("\(arguments) parsed")
            } catch {
                #expect(SettingsCtl.exitStatus(for: error) == .usage)
                let message = SettingsCtl.usageFailure(.usage, SettingsCtl.message(for: error)).message
                #expect(message == "Unexpected argument '\(arguments[3])'", "\(arguments)")
            }
        }
    }

    @Test("an argument not valid UTF-8 is the value of set only where set takes its value")
    func valueOfSet() {
        #expect(SettingsCtlLauncher.isValueOfSet(following: ["set", "k"]))
        #expect(SettingsCtlLauncher.isValueOfSet(following: ["--socket", "/s", "--json", "set", "k"]))
        #expect(SettingsCtlLauncher.isValueOfSet(following: ["set", "k", "--"]))
        #expect(!SettingsCtlLauncher.isValueOfSet(following: ["set", "k", "x"]))
        #expect(!SettingsCtlLauncher.isValueOfSet(following: ["set", "k", "-5"]))
        #expect(!SettingsCtlLauncher.isValueOfSet(following: ["set", "k", "--", "-x"]))
        #expect(!SettingsCtlLauncher.isValueOfSet(following: ["set"]))
        #expect(!SettingsCtlLauncher.isValueOfSet(following: ["get", "k"]))
    }

    @Test("an unknown command is named, with the closest command")
    func unknownCommand() {
        let failure = #expect(throws: CLIFailure.self) { try CommandLinePreflight.check(["shwo", "network"]) }
        #expect(failure?.status == .usage)
        #expect(failure?.message.contains("unknown command 'shwo'") == true)
        #expect(failure?.message.contains("did you mean 'show'?") == true)
        let help = #expect(throws: CLIFailure.self) { try CommandLinePreflight.check(["help", "bogus"]) }
        #expect(help?.message.contains("unknown command 'bogus'") == true)
    }

    @Test("--socket= with no path is a usage error and does not swallow the command")
    func emptySocket() {
        let failure = #expect(throws: CLIFailure.self) { try CommandLinePreflight.check(["--socket=", "get", "k"]) }
        #expect(failure?.message == "--socket needs a path")
        for arguments in [["--socket"], ["get", "k", "--socket"], ["apply", "status", "--apply-socket"]] {
            let last = #expect(throws: CLIFailure.self) { try CommandLinePreflight.check(arguments) }
            #expect(last?.message == "\(arguments.last!) needs a path", "\(arguments)")
        }
    }

    @Test("set takes a value beginning with '-' after --")
    func dashValue() throws {
        let command = try #require(try SettingsCtl.parseAsRoot(["set", "k", "--", "-5"]) as? SetCommand)
        #expect(command.key == "k" && command.value == "-5")
    }

    @Test("--json before the command prints the reply as JSON that reads back as the ViewModel")
    func jsonRoundTrip() throws {
        let server = FakeVarlinkServer(
            reply: JSONValue.object(["parameters": try JSONValueEncoder().encode(Fixtures.network)]).serialized()
        )
        let parsed = try SettingsCtl.parseAsRoot(["--json", "--socket", server.path, "show", "network"])
        let command = try #require(parsed as? ShowCommand)
        let output = try command.output(using: command.global.client(), style: .plain)
        #expect(
            try JSONValueDecoder().decode(ModuleViewModel.self, from: JSONValue(parsing: output)) == Fixtures.network
        )
        #expect(output.contains("\n  "))
        #expect(server.finish().contains(#""method":"io.viper.settings.ShowModule""#))
    }

    @Test("get sends Get with the key and prints just the value")
    func getCommand() throws {
        let reply = JSONValue.object([
            "parameters": try JSONValueEncoder().encode(ValueViewModel(item: Fixtures.port, revision: 7))
        ])
        let server = FakeVarlinkServer(reply: reply.serialized())
        let parsed = try SettingsCtl.parseAsRoot(["get", "network.proxy.port", "--socket", server.path])
        let command = try #require(parsed as? GetCommand)
        #expect(try command.output(using: command.global.client(), style: .plain) == "8080")
        #expect(server.finish().contains(#""parameters":{"key":"network.proxy.port"}"#))
    }

    @Test("set sends the value as text")
    func setCommand() throws {
        var previous = Fixtures.port
        previous.display = "3128"
        let model = SetResultViewModel(item: Fixtures.port, previous: previous, changed: true, revision: 8)
        let server = FakeVarlinkServer(
            reply: JSONValue.object(["parameters": try JSONValueEncoder().encode(model)]).serialized()
        )
        let parsed = try SettingsCtl.parseAsRoot(["--socket", server.path, "set", "network.proxy.port", "8080"])
        let command = try #require(parsed as? SetCommand)
        #expect(try command.output(using: command.global.client(), style: .plain) == "network.proxy.port: 3128 -> 8080")
        #expect(server.finish().contains(#""parameters":{"key":"network.proxy.port","text":"8080"}"#))
    }

    @Test("dump sends each module named once, in the order first given")
    func dumpSendsEachModuleOnce() throws {
        let server = FakeVarlinkServer(reply: #"{"parameters":{"modules":{}}}"#)
        let parsed = try SettingsCtl.parseAsRoot(
            ["--socket", server.path, "dump", "network", "display", "network", "network", "display"]
        )
        let command = try #require(parsed as? DumpCommand)
        _ = try command.output(using: command.global.client(), style: .plain)
        #expect(server.finish().contains(#""parameters":{"modules":["network","display"]}"#))
    }

    @Test("a reply that does not have the ViewModel's shape is an other failure")
    func wrongShape() throws {
        let server = FakeVarlinkServer(reply: #"{"parameters":{"item":{}}}"#)
        let parsed = try SettingsCtl.parseAsRoot(["--socket", server.path, "get", "k"])
        let command = try #require(parsed as? GetCommand)
        let failure = #expect(throws: CLIFailure.self) {
            try command.output(using: command.global.client(), style: .plain)
        }
        #expect(failure?.status == .failure)
        #expect(failure?.message.contains("unexpected reply") == true)
    }

    @Test("a module not served because its schema file was rejected is said so, with no other name suggested")
    func rejectedSchemaModule() throws {
        let server = FakeVarlinkServer(
            reply: #"{"error":"io.viper.settings.NoSuchModule","parameters":{"module":"t","schemaFile":"/m/t.json"}}"#
        )
        let parsed = try SettingsCtl.parseAsRoot(["--socket", server.path, "show", "t"])
        let command = try #require(parsed as? ShowCommand)
        let failure = #expect(throws: CLIFailure.self) {
            try command.output(using: command.global.client(), style: .plain)
        }
        #expect(failure?.status == .notFound)
        #expect(
            failure?.message
                == "no such module: 't'; its schema file /m/t.json was rejected (settingsctl status says why)"
        )
    }
}
