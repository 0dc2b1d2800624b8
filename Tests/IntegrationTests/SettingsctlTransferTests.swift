import Foundation
import SettingsAPI
import Testing

/// dump, load and diff: the real settingsctl against the real daemon, the files on disk.
@Suite("settingsctl dump, load and diff", .serialized)
struct SettingsctlTransferTests {
    /// Writes `text` to a file in the harness's folder and returns its path.
    static func file(_ name: String, _ text: String, in daemon: DaemonHarness) throws -> String {
        let url = daemon.root.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url.path
    }

    /// The lines of the module's journal, 0 when there is none.
    static func journalLines(_ module: String, in daemon: DaemonHarness) -> Int {
        let url = daemon.stateDirectory.appendingPathComponent("\(module).journal")
        let text = (try? String(contentsOf: url, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").count
    }

    @Test("a dump loaded on another host gives it the same values, in one durable write and one revision")
    func roundTrip() throws {
        let source = try DaemonHarness()
        try source.start()
        #expect(source.ctl(["set", "network.proxy.port", "3129"]).status == 0)
        #expect(source.ctl(["set", "network.dns.servers", #"["9.9.9.9", "[2606:4700::1111]:853"]"#]).status == 0)
        #expect(source.ctl(["set", "locale.language.fallbacks", #"["en_GB", "a,b"]"#]).status == 0)
        #expect(source.ctl(["set", "display.output.scale", "1.5"]).status == 0)
        let dump = source.ctl(["dump"])
        #expect(dump.status == 0, "\(dump)")
        let parsed = try JSONValue(parsing: dump.stdout)
        #expect(parsed["modules"]?["network"]?["values"]?["proxy.port"] == 3129, "\(dump.stdout)")
        #expect(parsed["modules"]?["network"]?["values"]?["dns.servers"] == ["9.9.9.9", "[2606:4700::1111]:853"])
        #expect(parsed["modules"]?["locale"]?["values"]?["language.fallbacks"] == ["en_GB", "a,b"])
        #expect(parsed["modules"]?["network"]?["revision"] == 2)
        #expect(parsed["modules"]?["network"]?["values"]?["proxy.mode"] == nil, "defaults are not dumped")
        #expect(parsed["modules"]?["power"]?["values"] == [:], "every module, also one without local values")
        #expect(source.stop() == 0)

        let target = try DaemonHarness()
        try target.start()
        let path = try Self.file("all.json", dump.stdout, in: target)
        let load = target.ctl(["load", path])
        #expect(load.status == 0, "\(load)")
        #expect(load.stdout.contains("network.proxy.port: 3128 -> 3129 (local)"), "\(load.stdout)")
        #expect(load.stdout.contains("network: loaded (revision 1)"), "\(load.stdout)")
        #expect(Self.journalLines("network", in: target) == 1, "one durable write for the module")
        #expect(target.stop() == 0)
        try target.start()
        let again = try JSONValue(parsing: target.ctl(["dump", "network", "display", "locale"]).stdout)
        #expect(again["modules"]?["network"]?["values"] == parsed["modules"]?["network"]?["values"])
        #expect(again["modules"]?["display"]?["values"] == parsed["modules"]?["display"]?["values"])
        #expect(again["modules"]?["locale"]?["values"] == parsed["modules"]?["locale"]?["values"])
        #expect(again["modules"]?["network"]?["revision"] == 1)
        #expect(target.ctl(["get", "network.dns.servers"]).stdout == #"["9.9.9.9","[2606:4700::1111]:853"]"# + "\n")
        #expect(target.ctl(["get", "locale.language.fallbacks"]).stdout == #"["en_GB","a,b"]"# + "\n")
        let effective = try JSONValue(parsing: target.ctl(["dump", "--effective", "network"]).stdout)
        let mode = effective["modules"]?["network"]?["effective"]?["proxy.mode"]
        #expect(mode?["layer"] == "default" && mode?["value"] == "none", "\(effective)")
        #expect(target.ctl(["load", path]).stdout.contains("network: no change"), "loading it again changes nothing")
        #expect(target.stop() == 0)
    }

    @Test("one bad value refuses the whole load, each problem named; the dry run lists them and changes nothing")
    func allOrNothing() throws {
        let fleet = try FleetDocumentServer(
            document: #"{"revision": "r1", "modules": {"network": {"mandatory": {"proxy.mode": "manual"}}}}"#
        )
        let daemon = try DaemonHarness()
        try daemon.start(extraArguments: ["--remote", fleet.url])
        let deadline = Date().addingTimeInterval(60)
        while daemon.ctl(["get", "network.proxy.mode"]).stdout != "manual\n" {
            try #require(Date() < deadline, "the fleet's value did not arrive:\n\(daemon.log)")
            usleep(50_000)
        }
        #expect(daemon.ctl(["set", "display.output.scale", "1.5"]).status == 0)
        let path = try Self.file(
            "bad.json",
            #"""
            {"modules": {
              "display": {"values": {"output.scale": 2.0}},
              "network": {"values": {"proxy.port": "big", "proxy.mode": "auto", "proxy.nope": 1, "dns.cache": false}}
            }}
            """#,
            in: daemon
        )
        let dryRun = daemon.ctl(["load", "--dry-run", path])
        #expect(dryRun.status == 6, "the first problem, by key, is a locked key: \(dryRun)")
        #expect(dryRun.stdout.contains("display.output.scale: 1.5 -> 2.0 (local)"), "\(dryRun.stdout)")
        #expect(dryRun.stdout.contains("network.proxy.nope: the schema of network has no such key"))
        #expect(
            dryRun.stdout.contains(#"network.proxy.port: "big": expected an integer, found a string"#),
            "the value is repeated as JSON: \(dryRun.stdout)"
        )
        #expect(dryRun.stdout.contains("network.proxy.mode: locked by fleet policy"), "\(dryRun.stdout)")
        let load = daemon.ctl(["load", path])
        #expect(load.status == 6, "\(load)")
        #expect(load.stderr.contains("nothing was loaded") && load.stderr.contains("network.proxy.mode: locked"))
        #expect(daemon.ctl(["get", "display.output.scale"]).stdout == "1.5\n", "nothing of the file was applied")
        #expect(daemon.ctl(["get", "network.dns.cache"]).stdout == "true\n")
        let json = daemon.ctl(["--json", "load", path])
        let error = try JSONValue(parsing: json.stderr)
        #expect(error["error"] == "io.viper.settings.LoadRefused", "\(json)")
        #expect(error["parameters"]?["problems"]?.arrayValue?.count == 3)
        let garbage = daemon.ctl(["load", try Self.file("garbage.json", "{\"modules\": [", in: daemon)])
        #expect(garbage.status == 1 && garbage.stderr.contains("garbage.json: not JSON: line 1"), "\(garbage)")
        #expect(daemon.stop() == 0)
    }

    @Test("--if-revision loads only onto the revision given, else exit 8; --replace removes what the file lacks")
    func compareAndSetAndReplace() throws {
        let daemon = try DaemonHarness()
        try daemon.start()
        #expect(daemon.ctl(["set", "network.proxy.port", "3129"]).status == 0)
        #expect(daemon.ctl(["set", "network.proxy.host", "proxy.example.org"]).status == 0)
        let path = try Self.file(
            "network.json",
            #"{"modules": {"network": {"revision": 2, "values": {"proxy.port": 8080}}}}"#,
            in: daemon
        )
        #expect(daemon.ctl(["diff", "network"]).stdout.contains("network.proxy.port: 3128 -> 3129 (local)"))
        let diff = daemon.ctl(["diff", "network", path])
        #expect(diff.status == 0 && diff.stdout.contains("network.proxy.port: 3129 -> 8080 (local)"), "\(diff)")
        #expect(!diff.stdout.contains("proxy.host"), "without --replace the host stays")
        #expect(daemon.ctl(["diff", "--replace", "network", path]).stdout.contains("network.proxy.host:"))
        // A module the file does not have: loading it would not change that module, --replace or not.
        let other = daemon.ctl(["diff", "--replace", "display", path])
        #expect(other.status == 0 && !other.stdout.contains(" -> "), "\(other)")
        // MODULE is what is wrong, not the file: said as dump says it.
        let unknown = daemon.ctl(["diff", "nosuchmodule", path])
        #expect(unknown.status == 4 && unknown.stderr.contains("no such module: 'nosuchmodule'"), "\(unknown)")
        #expect(daemon.ctl(["set", "network.proxy.port", "3130"]).status == 0)
        let stale = daemon.ctl(["load", "--if-revision", "network=2", path])
        #expect(stale.status == 8, "\(stale)")
        #expect(stale.stderr.contains("at revision 3, not 2"), "\(stale)")
        #expect(daemon.ctl(["get", "network.proxy.port"]).stdout == "3130\n")
        let current = daemon.ctl(["load", "--replace", "--if-revision", "network=3", path])
        #expect(current.status == 0, "\(current)")
        #expect(daemon.ctl(["get", "network.proxy.port"]).stdout == "8080\n")
        #expect(daemon.ctl(["get", "network.proxy.host"]).stdout == "\n", "--replace removed the local host")
        #expect(daemon.ctl(["load", "--if-revision", "display=1", path]).status == 2, "display is not in the file")
        #expect(daemon.stop() == 0)
    }
}
