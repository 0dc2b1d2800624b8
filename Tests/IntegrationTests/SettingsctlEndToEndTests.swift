import Foundation
import SettingsAPI
import Testing
import ViperTestSupport

/// The user's path from the README: the real daemon and the real settingsctl over a real socket.
@Suite("settingsctl against viper-settingsd", .serialized)
struct SettingsctlEndToEndTests {
    @Test("show on an 80-column terminal fits it, cutting a long value with …; a pipe gets the value whole")
    func showFitsTheTerminal() throws {
        let daemon = try DaemonHarness()
        try daemon.start()
        let long = "proxy-" + String(repeating: "x", count: 120) + ".example.org"
        #expect(daemon.ctl(["set", "network.proxy.host", long]).status == 0)
        let ctl = daemon.binDirectory.appendingPathComponent("settingsctl").path
        let inner = "stty cols 80 && \(ctl) --socket \(daemon.socketPath) show network"
        let terminal = DaemonHarness.run(["/usr/bin/script", "-qec", inner, "/dev/null"])
        #expect(terminal.status == 0, "\(terminal)")
        let lines = terminal.stdout.replacingOccurrences(of: "\r", with: "")
            .replacingOccurrences(of: "\u{1B}\\[[0-9;]*m", with: "", options: .regularExpression)
            .split(separator: "\n")
        #expect(lines.contains { $0.contains("network.proxy.host") && $0.contains("…") }, "\(terminal)")
        for line in lines { #expect(line.count <= 80, "wider than the terminal: \(line)") }
        #expect(daemon.ctl(["show", "network"]).stdout.contains(long), "a pipe gets the whole value")
        #expect(daemon.stop() == 0)
    }

    @Test("a local value equal to the default is marked and counted as modified, as the legend says")
    func modifiedMeansSetNotDifferent() throws {
        let daemon = try DaemonHarness()
        try daemon.start()
        #expect(daemon.ctl(["set", "network.proxy.port", "3128"]).status == 0)
        let show = daemon.ctl(["show", "network"]).stdout
        let line = show.split(separator: "\n").first { $0.contains("network.proxy.port") } ?? ""
        #expect(line.contains("3128") && line.contains("*"), "\(show)")
        #expect(show.contains("* set here or by the fleet (not the schema default)"), "\(show)")
        let modules = try JSONValue(parsing: daemon.ctl(["--json", "modules"]).stdout)
        let network = modules["modules"]?.arrayValue?.first { $0["module"] == "network" }
        #expect(network?["modified"] == 1, "\(modules)")
        #expect(daemon.stop() == 0)
    }

    @Test("a mistyped key or module is failed with the closest one; a module or section named as a key says so")
    func suggestions() throws {
        let daemon = try DaemonHarness()
        try daemon.start()
        let cases: [([String], String)] = [
            (["get", "network.proxy.prot"], "no such key: 'network.proxy.prot'; did you mean 'network.proxy.port'?"),
            (["set", "network.proxy.prot", "1"], "did you mean 'network.proxy.port'? (settingsctl show network lists"),
            (["show", "netwrok"], "no such module: 'netwrok'; did you mean 'network'?"),
            (["get", "Network.proxy.port"], "did you mean 'network'?"),
            (["get", "network"], "'network' is a module: a key is MODULE.SECTION.ITEM"),
            (["explain", "network.proxy"], "'network.proxy' is a section"),
            (["show", "network.proxy.port"], "'network.proxy.port' is not a module: its module is network"),
            (["get", "netwrok"], "did you mean module 'network'?"),
            (["get", "network.dns.port"], "no such key: 'network.dns.port' (settingsctl show network lists its keys)"),
            (["watch", "network.proxy"], "'network.proxy' is a section: a key is MODULE.SECTION.ITEM"),
            (["watch", "network.proxy.prot"], "did you mean 'network.proxy.port'?"),
            // A key without its module: the key of the module with that section and item, or the closest one.
            (
                ["get", "proxy.port"],
                "no such module: 'proxy'; did you mean 'network.proxy.port'? (settingsctl show network"
            ),
            (["explain", "proxy.prot"], "did you mean 'network.proxy.port'?"),
            (["watch", "proxy.port"], "did you mean 'network.proxy.port'?"),
            // An item or a section alone, the module and the item without its section (gsettings' habits).
            (["get", "port"], "no such key: 'port'; did you mean 'network.proxy.port'? (settingsctl show network"),
            (["get", "proxy"], "'proxy' is a section of module network: a key is MODULE.SECTION.ITEM"),
            (["get", "network.servers"], "did you mean 'network.dns.servers'?"),
        ]
        for (arguments, expected) in cases {
            let result = daemon.ctl(arguments)
            #expect(result.status == 4 && result.stderr.contains(expected), "\(arguments): \(result)")
        }
        let far = daemon.ctl(["get", "network.zzz.qqq"])
        #expect(far.status == 4 && !far.stderr.contains("did you mean"), "nothing close: no guess; \(far)")
        #expect(daemon.stop() == 0)
    }

    @Test("with --json a failure is one JSON object on stderr: the daemon's error, its parameters, the exit status")
    func jsonFailures() throws {
        let daemon = try DaemonHarness()
        try daemon.start()
        let missing = daemon.ctl(["--json", "get", "network.nope"])
        #expect(missing.status == 4, "\(missing)")
        let error = try JSONValue(parsing: missing.stderr)
        #expect(error["error"] == "io.viper.settings.NoSuchKey")
        #expect(error["parameters"]?["key"] == "network.nope")
        #expect(error["exitStatus"] == 4)
        #expect(error["message"]?.stringValue?.contains("no such key") == true)
        let unreachable = DaemonHarness.run([
            daemon.binDirectory.appendingPathComponent("settingsctl").path, "--json", "--socket",
            daemon.root.appendingPathComponent("absent.sock").path, "modules",
        ])
        #expect(unreachable.status == 3)
        #expect(try JSONValue(parsing: unreachable.stderr)["exitStatus"] == 3, "\(unreachable)")
        let invalid = daemon.ctl(["set", "network.proxy.port", "big", "--json"])
        #expect(try JSONValue(parsing: invalid.stderr)["error"] == "io.viper.settings.InvalidValue", "\(invalid)")
        #expect(daemon.stop() == 0)
    }

    @Test("sync and status exit 9 when remote sync is failing, after printing the state")
    func syncFailingExitStatus() throws {
        let daemon = try DaemonHarness()
        // Port 1 on loopback: nothing listens there, the connection is refused.
        try daemon.start(extraArguments: ["--remote", "http://127.0.0.1:1/fleet.json"])
        let deadline = Date().addingTimeInterval(60)
        var status = daemon.ctl(["status"])
        while status.status != 9 && Date() < deadline {
            usleep(50_000)
            status = daemon.ctl(["status"])
        }
        #expect(status.status == 9, "\(status)")
        #expect(status.stdout.contains("failing"), "\(status)")
        #expect(status.stderr.contains("remote sync is failing"), "\(status)")
        let sync = daemon.ctl(["sync"])
        #expect(sync.status == 9, "\(sync)")
        #expect(sync.stdout.contains("connection refused"), "\(sync)")
        let json = daemon.ctl(["--json", "sync"])
        #expect(json.status == 9)
        #expect(try JSONValue(parsing: json.stdout)["sync"]?["state"] == "failing", "\(json)")
        #expect(daemon.stop() == 0)

        let offline = try DaemonHarness()
        try offline.start()
        #expect(offline.ctl(["status"]).status == 0, "sync off is not a failure")
        #expect(offline.stop() == 0)
    }

    @Test("empty values are visible and lists that commas cannot show come back as JSON that set reads")
    func emptyAndAmbiguousValues() throws {
        let daemon = try DaemonHarness()
        try daemon.start()
        // network.dns.servers defaults to an empty list; network.proxy.host to an empty string.
        #expect(daemon.ctl(["get", "network.dns.servers"]).stdout == "[]\n")
        #expect(daemon.ctl(["get", "network.proxy.host"]).stdout == "\n", "a string prints as it is")
        let show = daemon.ctl(["show", "network"]).stdout
        let host = show.split(separator: "\n").first { $0.contains("network.proxy.host") } ?? ""
        #expect(host.contains("\"\""), "\(show)")

        let key = "locale.language.fallbacks"
        #expect(daemon.ctl(["set", key, #"["a,b", "", "c"]"#]).status == 0)
        let printed = daemon.ctl(["get", key]).stdout
        #expect(printed == #"["a,b","","c"]"# + "\n", "\(printed)")
        let back = daemon.ctl(["set", key, String(printed.dropLast())])
        #expect(back.status == 0 && back.stdout.contains("unchanged"), "get's output sets the same value: \(back)")
        #expect(daemon.ctl(["set", key, "a, b"]).status == 0)
        #expect(daemon.ctl(["get", key]).stdout == "a, b\n")

        let empty = daemon.ctl(["set", key, "a,,b"])
        #expect(empty.status == 5, "\(empty)")
        #expect(empty.stderr.contains("word 2 of the list is empty"), "\(empty)")
        #expect(daemon.ctl(["get", key]).stdout == "a, b\n", "the refused value changed nothing")
        #expect(daemon.stop() == 0)
    }

    @Test("the empty string and the string \"\" differ in show, set and watch; get prints each as it is")
    func emptyStringAndTwoQuotes() throws {
        let daemon = try DaemonHarness()
        try daemon.start()
        let key = "network.proxy.autoconfig-url"
        let watch = try BackgroundCommand(
            [
                daemon.binDirectory.appendingPathComponent("settingsctl").path, "--socket", daemon.socketPath, "watch",
                key,
            ]
        )
        #expect(watch.wait { $0.stdout.contains("-- watching") }, "\(watch.stdout)\(watch.stderr)")
        let quotes = daemon.ctl(["set", key, #""""#])
        #expect(quotes.stdout == #"\#(key): "" -> "\"\"""# + "\n", "\(quotes)")
        let shown = daemon.ctl(["show", "network"]).stdout.split(separator: "\n").first { $0.contains(key) } ?? ""
        #expect(shown.contains(#""\"\"""#), "\(shown)")
        #expect(daemon.ctl(["get", key]).stdout == #""""# + "\n", "get prints the value as it is")
        let empty = daemon.ctl(["set", key, ""])
        #expect(empty.stdout == #"\#(key): "\"\"" -> """# + "\n", "\(empty)")
        #expect(daemon.ctl(["get", key]).stdout == "\n")
        #expect(
            watch.wait { $0.lines.contains { $0.hasPrefix(#"\#(key): "\"\"" -> "" "#) } },
            "\(watch.stdout)\(watch.stderr)"
        )
        #expect(watch.lines.contains { $0.hasPrefix(#"\#(key): "" -> "\"\"" "#) }, "\(watch.stdout)")
        watch.stop()
        #expect(daemon.stop() == 0)
    }

    @Test("an item carries its limits as data: range, choices, pattern and lengths; a bool has none")
    func structuredLimits() throws {
        let daemon = try DaemonHarness()
        try daemon.start()
        func limits(_ key: String) throws -> JSONValue? {
            try JSONValue(parsing: daemon.ctl(["--json", "get", key]).stdout)["item"]?["limits"]
        }
        let port = try limits("network.proxy.port")
        #expect(port?["minimum"] == 1 && port?["maximum"] == 65535, "\(String(describing: port))")
        #expect(try limits("network.proxy.mode")?["choices"] == ["none", "manual", "auto"])
        let host = try limits("network.proxy.host")
        #expect(host?["maxLength"] == 253 && host?["pattern"]?.stringValue != nil, "\(String(describing: host))")
        #expect(host?["maxSize"] == 65536, "the daemon's max-value-size")
        #expect(try limits("network.dns.cache") == nil)
        #expect(daemon.stop() == 0)
    }

    @Test("explain shows a fleet value the schema rejected, with the reason; the last good value stays")
    func explainShowsRejectedFleetValue() throws {
        let fleet = try FleetDocumentServer(
            document: #"""
                {"revision": "r7", "modules": {"network": {
                  "recommended": {"proxy.mode": "auto"}, "mandatory": {"proxy.port": 99999}}}}
                """#
        )
        let daemon = try DaemonHarness()
        try daemon.start(extraArguments: ["--remote", fleet.url])
        let deadline = Date().addingTimeInterval(60)
        while daemon.ctl(["get", "network.proxy.mode"]).stdout != "auto\n" {
            try #require(Date() < deadline, "the remote values did not arrive; log:\n\(daemon.log)")
            usleep(50_000)
        }
        let explain = daemon.ctl(["explain", "network.proxy.port"])
        #expect(
            explain.stdout.contains("fleet value rejected: value 99999: must be within 1..65535"),
            "\(explain)"
        )
        #expect(daemon.ctl(["get", "network.proxy.port"]).stdout == "3128\n")
        let json = try JSONValue(parsing: daemon.ctl(["--json", "explain", "network.proxy.port"]).stdout)
        #expect(json["rejected"]?.arrayValue?.count == 1, "\(json)")
        let clean = try JSONValue(parsing: daemon.ctl(["--json", "explain", "network.proxy.mode"]).stdout)
        #expect(clean["rejected"] == nil)
        let status = try JSONValue(parsing: daemon.ctl(["--json", "status"]).stdout)
        #expect(status["sync"]?["recommendedInForce"] == 1, "\(status)")
        #expect(status["sync"]?["mandatoryInForce"] == 0, "the rejected value is not in force: \(status)")
        #expect(daemon.stop() == 0)
    }

    @Test("a reload that narrows a key: its fleet value no longer counts in force, status and explain say why")
    func reloadNarrowsAFleetValue() throws {
        let fleet = try FleetDocumentServer(
            document: #"{"revision": "r1", "modules": {"network": {"mandatory": {"proxy.port": 8080}}}}"#
        )
        let daemon = try DaemonHarness()
        let modules = daemon.root.appendingPathComponent("modules")
        try FileManager.default.copyItem(
            at: DaemonHarness.packageRoot.appendingPathComponent("config/modules"),
            to: modules
        )
        let file = daemon.root.appendingPathComponent("viper-settingsd.conf")
        try "modules-dir = \(modules.path)\n".write(to: file, atomically: true, encoding: .utf8)
        let notify = try NotifySocket(directory: daemon.root)
        try daemon.start(
            extraArguments: ["--config", file.path, "--remote", fleet.url],
            environment: ["NOTIFY_SOCKET": notify.path]
        )
        _ = try #require(notify.wait(for: "READY=1"), "no READY=1; log:\n\(daemon.log)")
        let deadline = Date().addingTimeInterval(60)
        while daemon.ctl(["get", "network.proxy.port"]).stdout != "8080\n" {
            try #require(Date() < deadline, "the remote values did not arrive; log:\n\(daemon.log)")
            usleep(50_000)
        }
        let schema = modules.appendingPathComponent("network.json")
        let narrowed = try String(contentsOf: schema, encoding: .utf8)
            .replacingOccurrences(of: #""range": [1, 65535]"#, with: #""range": [1, 5000]"#)
        try narrowed.write(to: schema, atomically: true, encoding: .utf8)
        daemon.signal(SIGHUP)
        _ = try #require(notify.wait(for: "READY=1"), "no READY=1 after reload; log:\n\(daemon.log)")
        let status = try JSONValue(parsing: daemon.ctl(["--json", "status"]).stdout)
        #expect(status["sync"]?["mandatoryInForce"] == 0, "\(status)")
        #expect(
            status["sync"]?["rejected"] == ["network.proxy.port: value 8080: must be within 1..5000 (mandatory)"],
            "\(status)"
        )
        let explain = daemon.ctl(["explain", "network.proxy.port"])
        #expect(
            explain.stdout.contains("fleet value rejected: value 8080: must be within 1..5000"),
            "\(explain)"
        )
        #expect(daemon.ctl(["set", "network.proxy.port", "500"]).status == 0, "the lock is lifted")
        #expect(daemon.stop() == 0)
    }

    @Test("status says so when the source is ok but names no key of a module served")
    func statusShowsNoValuesInForce() throws {
        let fleet = try FleetDocumentServer(
            document: #"{"revision": "r1", "modules": {"nosuch": {"recommended": {"a.b": 1}}}}"#
        )
        let daemon = try DaemonHarness()
        try daemon.start(extraArguments: ["--remote", fleet.url])
        let deadline = Date().addingTimeInterval(60)
        var status = daemon.ctl(["status"])
        while !status.stdout.contains("state:        ok") {
            try #require(Date() < deadline, "sync did not succeed: \(status)\nlog:\n\(daemon.log)")
            usleep(50_000)
            status = daemon.ctl(["status"])
        }
        #expect(status.stdout.contains("0 recommended, 0 mandatory"), "\(status)")
        #expect(status.stdout.contains("the source names no key of a module served"), "\(status)")
        #expect(daemon.stop() == 0)
    }

    @Test("get, set, explain, reset, and values survive a restart")
    func userJourney() throws {
        let daemon = try DaemonHarness()
        try daemon.start()

        let modules = daemon.ctl(["modules"])
        #expect(modules.status == 0, "\(modules)")
        for name in ["display", "locale", "network", "power", "updates"] { #expect(modules.stdout.contains(name)) }

        let show = daemon.ctl(["show", "network"])
        #expect(show.status == 0, "\(show)")
        #expect(show.stdout.contains("Proxy") && show.stdout.contains("3128"))

        #expect(daemon.ctl(["get", "network.proxy.port"]).stdout == "3128\n")
        let set = daemon.ctl(["set", "network.proxy.port", "8080"])
        #expect(set.status == 0, "\(set)")
        #expect(daemon.ctl(["get", "network.proxy.port"]).stdout == "8080\n")

        #expect(daemon.stop() == 0, "daemon log:\n\(daemon.log)")
        try daemon.start()
        #expect(daemon.ctl(["get", "network.proxy.port"]).stdout == "8080\n", "the value must survive a restart")

        let explain = daemon.ctl(["explain", "network.proxy.port"])
        #expect(explain.status == 0, "\(explain)")
        for word in ["default", "recommended", "local", "mandatory", "3128", "8080"] {
            #expect(explain.stdout.contains(word), "explain should show \(word): \(explain.stdout)")
        }

        let reset = daemon.ctl(["reset", "network.proxy.port"])
        #expect(reset.status == 0, "\(reset)")
        #expect(daemon.ctl(["get", "network.proxy.port"]).stdout == "3128\n")
        #expect(daemon.stop() == 0)
    }

    @Test("typed values: doubles, lists as words or JSON, booleans")
    func typedValues() throws {
        let daemon = try DaemonHarness()
        try daemon.start()
        #expect(daemon.ctl(["set", "display.output.scale", "1.25"]).status == 0)
        #expect(daemon.ctl(["get", "display.output.scale"]).stdout == "1.25\n")
        #expect(daemon.ctl(["set", "updates.policy.channels", "stable,beta"]).status == 0)
        let json = daemon.ctl(["--json", "get", "updates.policy.channels"])
        let value = try JSONValue(parsing: json.stdout)
        #expect(value["item"]?["value"] == ["stable", "beta"], "\(json)")
        #expect(daemon.ctl(["set", "updates.policy.channels", #"["security"]"#]).status == 0)
        #expect(daemon.ctl(["--json", "get", "updates.policy.channels"]).stdout.contains("security"))
        #expect(daemon.ctl(["set", "network.dns.cache", "false"]).status == 0)
        #expect(daemon.ctl(["get", "network.dns.cache"]).stdout == "false\n")
    }

    @Test("errors have distinct exit codes and messages naming what was wrong")
    func errors() throws {
        let daemon = try DaemonHarness()
        try daemon.start()

        let invalid = daemon.ctl(["set", "network.proxy.port", "70000"])
        #expect(invalid.status == 5, "\(invalid)")
        for part in ["network.proxy.port", "70000", "1..65535"] { #expect(invalid.stderr.contains(part), "\(invalid)") }
        #expect(daemon.ctl(["get", "network.proxy.port"]).stdout == "3128\n", "an invalid set changes nothing")

        let noKey = daemon.ctl(["get", "network.nope"])
        #expect(noKey.status == 4, "\(noKey)")
        #expect(noKey.stderr.contains("network.nope"))
        #expect(daemon.ctl(["show", "nope"]).status == 4)

        let usage = daemon.ctl(["set", "network.proxy.port"])
        #expect(usage.status == 2, "\(usage)")

        let unreachable = daemon.ctl(["get", "network.proxy.port"], socket: daemon.root.path + "/missing.sock")
        #expect(unreachable.status == 3, "\(unreachable)")
        #expect(unreachable.stderr.contains("missing.sock"))
    }

    @Test("a user who is not a writer is refused with exit 7; everyone may read")
    func permissionDenied() throws {
        guard getuid() == 0 else { return }  // needs root to act as another user
        let daemon = try DaemonHarness()
        try daemon.start()
        chmod(daemon.root.path, 0o755)
        chmod(daemon.root.appendingPathComponent("run").path, 0o755)
        let read = daemon.ctl(["get", "network.proxy.port"], asUser: 65534)
        #expect(read.status == 0, "\(read)")
        let write = daemon.ctl(["set", "network.proxy.port", "1"], asUser: 65534)
        #expect(write.status == 7, "\(write)")
        #expect(write.stderr.contains("permission denied"))
    }

    @Test("--json show prints the ViewModel")
    func jsonShow() throws {
        let daemon = try DaemonHarness()
        try daemon.start()
        let result = daemon.ctl(["--json", "show", "network"])
        #expect(result.status == 0, "\(result)")
        let model = try JSONValueDecoder().decode(ModuleViewModel.self, from: JSONValue(parsing: result.stdout))
        #expect(model.module == "network")
        #expect(model.sections.map(\.id) == ["proxy", "dns"])
    }

    @Test("a broken schema is reported by file and path while the other modules load")
    func brokenSchema() throws {
        let daemon = try DaemonHarness()
        let modules = daemon.root.appendingPathComponent("modules")
        try FileManager.default.createDirectory(at: modules, withIntermediateDirectories: true)
        for name in ["network", "power"] {
            try FileManager.default.copyItem(
                at: DaemonHarness.packageRoot.appendingPathComponent("config/modules/\(name).json"),
                to: modules.appendingPathComponent("\(name).json")
            )
        }
        let broken = try String(contentsOf: modules.appendingPathComponent("power.json"), encoding: .utf8)
            .replacingOccurrences(of: "\"default\": 300", with: "\"default\": 99999")
        try broken.write(to: modules.appendingPathComponent("power.json"), atomically: true, encoding: .utf8)
        try "{ not json".write(to: modules.appendingPathComponent("bad.json"), atomically: true, encoding: .utf8)
        try daemon.start(extraArguments: ["--modules-dir", modules.path])
        let list = daemon.ctl(["modules"])
        #expect(list.stdout.contains("network"))
        #expect(!list.stdout.contains("power"))
        #expect(daemon.log.contains("power.json"))
        #expect(daemon.log.contains("$.sections[0].items[1].default"), "\(daemon.log)")
        #expect(daemon.log.contains("bad.json"))
    }

    @Test("a corrupt state file is moved aside and the daemon keeps serving")
    func corruptState() throws {
        let daemon = try DaemonHarness()
        try FileManager.default.createDirectory(at: daemon.stateDirectory, withIntermediateDirectories: true)
        try "{ this is not json".write(
            to: daemon.stateDirectory.appendingPathComponent("network.json"),
            atomically: true,
            encoding: .utf8
        )
        try daemon.start()
        #expect(daemon.ctl(["get", "network.proxy.port"]).stdout == "3128\n")
        #expect(daemon.ctl(["set", "network.proxy.port", "8081"]).status == 0)
        let files = try FileManager.default.contentsOfDirectory(atPath: daemon.stateDirectory.path)
        #expect(files.contains { $0.hasPrefix("network.json.corrupt-") }, "\(files)")
    }
}
