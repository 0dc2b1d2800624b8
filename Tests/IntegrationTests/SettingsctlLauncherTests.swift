import Foundation
import Testing

/// `settingsctl` runs the common command lines itself and hands the others to `settingsctl-full`: users see one
/// command either way. Serialized: each test blocks a thread of the small cooperative pool while processes run.
@Suite("settingsctl and settingsctl-full", .serialized)
struct SettingsctlLauncherTests {
    private static var settingsctl: String { DaemonHarness.binDirectory.appendingPathComponent("settingsctl").path }
    private static var full: String { DaemonHarness.binDirectory.appendingPathComponent("settingsctl-full").path }

    @Test(
        "help, version and usage errors are settingsctl-full's, with its exit status",
        arguments: [["--help"], ["--version"], ["get"], ["get", "--help"], ["set", "network.proxy.port"], ["nope"]]
    )
    func handsOtherLinesToTheFullInterface(arguments: [String]) {
        let launched = DaemonHarness.run([Self.settingsctl] + arguments)
        let direct = DaemonHarness.run([Self.full] + arguments)
        #expect(launched.status == direct.status, "\(launched)")
        #expect(launched.stdout == direct.stdout)
        #expect(launched.stderr == direct.stderr)
        #expect(launched.stdout.contains("settingsctl") || launched.stderr.contains("settingsctl"))
        #expect(!launched.stdout.contains("settingsctl-full") && !launched.stderr.contains("settingsctl-full"))
    }

    @Test(
        "a usage error names what is wrong and exits 2",
        arguments: [
            ([] as [String], "a command is required"), (["shwo", "network"], "did you mean 'show'?"),
            (["help", "bogus"], "unknown command 'bogus'"), (["--socket=", "get", "k"], "--socket needs a path"),
            (["--bogus"], "unknown option '--bogus', and a command is required"),
            // ArgumentParser's own messages repeat the argument: its terminal escape is escaped.
            (["--bo\u{1b}[2Jgus", "get", "x"], "Unknown option '--bo\\u{1b}[2Jgus'"),
            (["set", "a.b.c", "1", "\u{1b}]0;t\u{7}"], "Unexpected argument '\\u{1b}]0;t\\u{7}'"),
        ]
    )
    func usageErrors(arguments: [String], message: String) {
        let result = DaemonHarness.run([Self.settingsctl] + arguments)
        #expect(result.status == 2, "\(result)")
        #expect(result.stderr.contains(message), "\(result)")
        #expect(!result.stderr.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 }, "\(result)")
        #expect(result.stdout.isEmpty)
    }

    @Test(
        "viper-settingsd prints a usage error and exits 2",
        arguments: [
            (["bogus"], "Unexpected argument 'bogus'"), (["--socket"], "Missing value for '--socket"),
            (["--x\u{1b}[31m"], "Unknown option '--x\\u{1b}[31m'"),
        ]
    )
    func daemonUsageErrors(arguments: [String], message: String) {
        let daemon = DaemonHarness.binDirectory.appendingPathComponent("viper-settingsd").path
        let result = DaemonHarness.run([daemon] + arguments)
        #expect(result.status == 2, "\(result)")
        #expect(result.stderr.contains(message), "\(result)")
        #expect(!result.stderr.unicodeScalars.contains { $0.value == 0x1B }, "\(result)")
    }

    @Test("the common command lines run without settingsctl-full; the others name it when it is missing")
    func missingFullInterface() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("viper-ctl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let alone = directory.appendingPathComponent("settingsctl").path
        try FileManager.default.copyItem(atPath: Self.settingsctl, toPath: alone)

        let socket = directory.appendingPathComponent("absent.sock").path
        let get = DaemonHarness.run([alone, "--socket", socket, "get", "network.proxy.port"])
        #expect(get.status == 3, "a get is run by settingsctl itself: \(get)")
        #expect(get.stderr.contains("cannot reach the settings daemon at \(socket)"))

        let help = DaemonHarness.run([alone, "--help"])
        #expect(help.status == 1)
        #expect(help.stdout.isEmpty)
        #expect(help.stderr.contains("settingsctl: settingsctl-full is missing"))
        #expect(help.stderr.contains("\(directory.path)/settingsctl-full"))
        #expect(help.stderr.contains("\(directory.path)/../libexec/viper-settings/settingsctl-full"))

        // With --json, the failure is one JSON object, as every failure is.
        for arguments in [["--json", "foo"], ["foo", "--json"], ["--json", "get", "a", "b"]] {
            let json = DaemonHarness.run([alone] + arguments)
            #expect(json.status == 1, "\(json)")
            #expect(json.stdout.isEmpty)
            let report = try JSONSerialization.jsonObject(with: Data(json.stderr.utf8)) as? [String: Any]
            #expect(report?["exitStatus"] as? Int == 1, "\(json)")
            #expect((report?["message"] as? String)?.hasPrefix("settingsctl-full is missing") == true, "\(json)")
            #expect(json.stderr.hasSuffix("}\n") && json.stderr.filter { $0 == "\n" }.count == 1, "\(json)")
        }
    }

    @Test("installed as PREFIX/bin/settingsctl, it finds PREFIX/libexec/viper-settings/settingsctl-full")
    func installedLayout() throws {
        let prefix = FileManager.default.temporaryDirectory.appendingPathComponent("viper-prefix-\(UUID().uuidString)")
        let bin = prefix.appendingPathComponent("bin")
        let libexec = prefix.appendingPathComponent("libexec/viper-settings")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: libexec, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: prefix) }
        try FileManager.default.copyItem(
            atPath: Self.settingsctl,
            toPath: bin.appendingPathComponent("settingsctl").path
        )
        try FileManager.default.copyItem(
            atPath: Self.full,
            toPath: libexec.appendingPathComponent("settingsctl-full").path
        )
        // Through a symbolic link, as /usr/local/bin/settingsctl -> /opt/... would be: the link's target counts.
        let link = prefix.appendingPathComponent("settingsctl-link").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "bin/settingsctl")

        let version = DaemonHarness.run([link, "--version"])
        #expect(version.status == 0, "\(version)")
        #expect(version.stdout.hasPrefix("settingsctl "))
    }

    @Test("settingsctl does not load Foundation, which would slow every start (the reason for two executables)")
    func launcherDoesNotLinkFoundation() throws {
        let libraries = DaemonHarness.run(["/usr/bin/ldd", Self.settingsctl])
        // A static executable (as `make build` makes it) has no libraries at all; a debug build lists the Swift
        // runtime's shared libraries, and must not list Foundation's.
        #expect(
            libraries.status == 0 && libraries.stdout.contains("libswiftCore")
                || libraries.stdout.contains("not a dynamic executable")
                || libraries.stderr.contains("not a dynamic executable"),
            "\(libraries)"
        )
        #expect(!libraries.stdout.contains("Foundation"), "\(libraries.stdout)")
        let full = DaemonHarness.run(["/usr/bin/ldd", Self.full])
        if full.stdout.contains("libswiftCore") {
            #expect(full.stdout.contains("Foundation"), "the check above can see Foundation: \(full.stdout)")
        }
    }
}
