import Foundation
import Glibc
import Testing
import ViperTestSupport

/// The real `viper-settingsd` given a configuration with an error: at start it exits 2 naming where the value came
/// from; on reload it keeps running and says what it reloaded and what it did not.
@Suite("viper-settingsd and a configuration with an error", .serialized)
struct DaemonConfigurationErrorTests {
    /// Runs the daemon with `arguments` on a fresh state directory and socket, to its end.
    private static func start(_ arguments: [String], in daemon: DaemonHarness) -> CommandResult {
        DaemonHarness.run(
            [
                daemon.binDirectory.appendingPathComponent("viper-settingsd").path,
                "--state-dir", daemon.stateDirectory.path, "--socket", daemon.socketPath,
            ] + arguments
        )
    }

    @Test(
        "a remote URL it cannot use in the configuration file: exit 2, naming the file and the key",
        arguments: ["ftp://x/y", "etcd://127.0.0.1:9", "https://"]
    )
    func unusableRemoteInFile(remote: String) throws {
        let daemon = try DaemonHarness()
        let file = daemon.root.appendingPathComponent("viper-settingsd.conf")
        try "remote = \(remote)\n".write(to: file, atomically: true, encoding: .utf8)
        let result = Self.start(["--config", file.path], in: daemon)
        #expect(result.status == 2, "\(result)")
        #expect(result.stderr.hasPrefix("viper-settingsd: \(file.path):1: remote: "), "\(result)")
        #expect(!FileManager.default.fileExists(atPath: daemon.socketPath), "it must stop before it listens")
    }

    @Test("--remote with a URL it cannot use is a usage error: exit 2, naming the flag")
    func unusableRemoteFlag() throws {
        let daemon = try DaemonHarness()
        let file = daemon.root.appendingPathComponent("empty.conf")
        try "".write(to: file, atomically: true, encoding: .utf8)
        let flag = Self.start(["--config", file.path, "--remote", "ftp://x"], in: daemon)
        #expect(flag.status == 2, "\(flag)")
        #expect(flag.stderr.hasPrefix("viper-settingsd: --remote: 'ftp://x' is not an https://"), "\(flag)")
        // A port beyond 65535 stopped the daemon with SIGILL once it had started.
        let port = Self.start(["--config", file.path, "--remote", "http://127.0.0.1:99999/x"], in: daemon)
        #expect(port.status == 2, "\(port)")
        #expect(port.stderr.contains("the port must be a number from 1 to 65535"), "\(port)")
    }

    @Test("a configuration with an error on reload: logged, not applied, the schemas reloaded, and said so")
    func errorOnReload() throws {
        let daemon = try DaemonHarness()
        let file = daemon.root.appendingPathComponent("viper-settingsd.conf")
        let modules = DaemonHarness.packageRoot.appendingPathComponent("config/modules").path
        try "modules-dir = \(modules)\n".write(to: file, atomically: true, encoding: .utf8)
        let notify = try NotifySocket(directory: daemon.root)
        // The last --config wins over the harness's own.
        try daemon.start(extraArguments: ["--config", file.path], environment: ["NOTIFY_SOCKET": notify.path])
        _ = try #require(notify.wait(for: "READY=1"), "no READY=1; log:\n\(daemon.log)")

        try "modules-dir = \(modules)\nmax-connections = 0\n".write(to: file, atomically: true, encoding: .utf8)
        daemon.signal(SIGHUP)
        _ = try #require(notify.wait(for: "READY=1"), "no READY=1 after reload; log:\n\(daemon.log)")
        let log = daemon.log
        #expect(log.contains("configuration not reloaded, keeping the current one: \(file.path):2: max-connections"))
        #expect(
            log.contains("reloaded the schemas; the configuration was not (see above): serving 5 modules"),
            "\(log)"
        )
        #expect(!log.contains("reloaded: "), "no line may say all was reloaded: \(log)")
        #expect(daemon.ctl(["get", "network.proxy.port"]).status == 0, "the daemon keeps serving")
        let status = daemon.ctl(["status"])
        #expect(
            status.stdout.contains(
                "configuration not reloaded, the previous configuration is in force: \(file.path):2: max-connections"
            ),
            "status says why: \(status)"
        )

        try "modules-dir = \(modules)\n".write(to: file, atomically: true, encoding: .utf8)
        daemon.signal(SIGHUP)
        _ = try #require(notify.wait(for: "READY=1"), "no READY=1 after reload; log:\n\(daemon.log)")
        #expect(daemon.log.contains("reloaded the configuration and the schemas: serving 5 modules"))
        #expect(!daemon.ctl(["status"]).stdout.contains("configuration not reloaded"), "a good reload clears it")
        #expect(daemon.stop() == 0)
    }
}
