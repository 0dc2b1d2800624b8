import Foundation
import SettingsAPI
import Testing

/// settings-bench, the load generator of the benchmarks, against the real daemon: what it reports must be what
/// happened on the server.
@Suite("settings-bench against viper-settingsd")
struct SettingsBenchEndToEndTests {
    private static func bench(_ arguments: [String], daemon: DaemonHarness) -> CommandResult {
        DaemonHarness.run([daemon.binDirectory.appendingPathComponent("settings-bench").path] + arguments)
    }

    @Test("a mixed run reports gets and sets without errors, and every recorded set was a durable change")
    func mixedRun() throws {
        let daemon = try DaemonHarness()
        try daemon.start()
        let result = Self.bench(
            [
                "--socket", daemon.socketPath, "--connections", "2", "--sets", "50", "--duration", "1",
                "--warmup", "0", "--json",
            ],
            daemon: daemon
        )
        #expect(result.status == 0, "\(result)")
        let report = try JSONValue(parsing: result.stdout)
        #expect(report["protocol"] == "varlink")
        #expect(report["connections"] == 2)
        #expect(report["errors"] == 0)
        let gets = report["get"]?["count"]?.intValue ?? 0
        let sets = report["set"]?["count"]?.intValue ?? 0
        #expect(gets > 0 && sets > 0, "\(result.stdout)")
        #expect((report["set"]?["p50Us"]?.doubleValue ?? 0) > 0)
        // Each set stores a value different from the one before it, so each one moved the module's revision.
        let get = daemon.ctl(["--json", "get", "network.proxy.port"])
        #expect(get.status == 0, "\(get)")
        let revision = try JSONValue(parsing: get.stdout)["revision"]?.intValue ?? 0
        #expect(revision >= sets, "revision \(revision) after \(sets) recorded sets")
        #expect(try JSONValue(parsing: get.stdout)["item"]?["layer"] == "local")
    }

    @Test("--keys-file takes one key per line (LF or CRLF, blank lines skipped) and spreads sets over them")
    func keysFile() throws {
        let daemon = try DaemonHarness()
        try daemon.start()
        let file = daemon.root.appendingPathComponent("keys.txt")
        try Data("network.proxy.port\n\npower.idle.blank-after\r\n".utf8).write(to: file)
        let before = try JSONValue(parsing: daemon.ctl(["--json", "get", "power.idle.blank-after"]).stdout)
        let result = Self.bench(
            [
                "--socket", daemon.socketPath, "--keys-file", file.path, "--sets", "100", "--max-value", "200",
                "--duration", "1", "--warmup", "0", "--json",
            ],
            daemon: daemon
        )
        #expect(result.status == 0, "\(result)")
        #expect(try JSONValue(parsing: result.stdout)["keys"] == 2, "\(result.stdout)")
        for key in ["network.proxy.port", "power.idle.blank-after"] {
            let get = try JSONValue(parsing: daemon.ctl(["--json", "get", key]).stdout)
            #expect(get["item"]?["layer"] == "local", "\(key) was set: \(get)")
        }
        #expect(before["item"]?["layer"] != "local")
        let bad = Self.bench(["--socket", daemon.socketPath, "--key", "a\"b"], daemon: daemon)
        #expect(bad.status == 64 && bad.stderr.contains("invalid key"), "\(bad)")
    }

    @Test("an unknown key is counted as an error reply and makes the exit status 1")
    func errorReplies() throws {
        let daemon = try DaemonHarness()
        try daemon.start()
        let result = Self.bench(
            ["--socket", daemon.socketPath, "--key", "network.proxy.nope", "--duration", "0.2", "--warmup", "0"],
            daemon: daemon
        )
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.contains("error replies"), "\(result)")
    }

    @Test("a socket nobody listens on is exit 69 naming the path; a bad option is a usage error")
    func unreachableAndUsage() throws {
        let daemon = try DaemonHarness()
        let missing = daemon.root.appendingPathComponent("nobody").path
        let unreachable = Self.bench(["--socket", missing, "--duration", "0.1"], daemon: daemon)
        #expect(unreachable.status == 69, "\(unreachable)")
        #expect(unreachable.stderr.contains("cannot connect to \(missing)"), "\(unreachable)")
        let usage = Self.bench(["--socket", missing, "--sets", "101"], daemon: daemon)
        #expect(usage.status == 64, "\(usage)")
        #expect(usage.stderr.contains("--sets"), "\(usage)")
    }
}
