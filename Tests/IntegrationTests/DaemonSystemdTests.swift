import Foundation
import Glibc
import SettingsAPI
import Testing
import ViperTestSupport

/// The daemon's systemd protocol without systemd as PID 1: sd_notify to a socket of the test's. (Socket activation
/// through `systemd-socket-activate` is tested in Tests/interop/test_systemd.py.)
@Suite("viper-settingsd and systemd's protocols", .serialized)
struct DaemonSystemdTests {
    @Test("READY=1 with a STATUS line, RELOADING=1 then READY=1 on SIGHUP, STOPPING=1 on SIGTERM")
    func notifications() throws {
        let daemon = try DaemonHarness()
        let notify = try NotifySocket(directory: daemon.root)
        try daemon.start(environment: ["NOTIFY_SOCKET": notify.path], waitUntilServing: false)

        let ready = try #require(notify.wait(for: "READY=1"), "no READY=1; log:\n\(daemon.log)")
        let status = ready.joined(separator: "\n")
        #expect(status.contains("STATUS=serving 5 modules"), "\(status)")
        #expect(daemon.ctl(["set", "network.proxy.port", "8080"]).status == 0, "ready means serving")

        daemon.signal(SIGHUP)
        let reload = try #require(notify.wait(for: "READY=1"), "no READY=1 after reload; log:\n\(daemon.log)")
        #expect(reload.first?.contains("RELOADING=1") == true, "\(reload)")
        #expect(reload.joined().contains("MONOTONIC_USEC="))
        #expect(daemon.ctl(["get", "network.proxy.port"]).stdout == "8080\n", "values are kept across a reload")

        daemon.signal(SIGTERM)
        #expect(notify.wait(for: "STOPPING=1") != nil, "no STOPPING=1; log:\n\(daemon.log)")
        #expect(daemon.stop() == 0)
    }

    @Test("a NOTIFY_SOCKET that takes nothing (its queue full, nobody reading) holds up neither serving nor stopping")
    func notifySocketThatTakesNothing() throws {
        let daemon = try DaemonHarness()
        let notify = try NotifySocket(directory: daemon.root)
        #expect(try Self.fill(notify.path) > 0)
        try daemon.start(environment: ["NOTIFY_SOCKET": notify.path])
        #expect(daemon.ctl(["set", "network.proxy.port", "8080"]).status == 0)
        // Its notifications are dropped, STOPPING=1 too; a minute is generous for a loaded machine.
        #expect(daemon.stop(within: 60) == 0, "it did not stop; log:\n\(daemon.log)")
    }

    /// Sends datagrams to the socket at `path` until its queue takes no more; returns how many it took.
    static func fill(_ path: String) throws -> Int {
        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard descriptor >= 0 else { throw SystemCallError(operation: "socket", code: errno) }
        defer { close(descriptor) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            path.utf8CString.withUnsafeBytes {
                raw.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0.prefix(raw.count - 1)))
            }
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else { throw SystemCallError(operation: "connect", code: errno) }
        var count = 0
        while count < 100_000, Glibc.send(descriptor, "X=1", 3, Int32(MSG_DONTWAIT)) == 3 { count += 1 }
        return count
    }

    @Test("WATCHDOG=1 arrives at half of WATCHDOG_USEC")
    func watchdog() throws {
        let daemon = try DaemonHarness()
        let notify = try NotifySocket(directory: daemon.root)
        try daemon.start(environment: ["NOTIFY_SOCKET": notify.path, "WATCHDOG_USEC": "200000"])
        for _ in 0..<3 {
            #expect(notify.wait(for: "WATCHDOG=1", timeout: 10) != nil, "log:\n\(daemon.log)")
        }
    }

    @Test("a reload keeps the previous version of a schema that broke, and picks up a new module")
    func reloadSchemas() throws {
        let daemon = try DaemonHarness()
        let modules = daemon.root.appendingPathComponent("modules")
        try FileManager.default.createDirectory(at: modules, withIntermediateDirectories: true)
        let source = DaemonHarness.packageRoot.appendingPathComponent("config/modules")
        try FileManager.default.copyItem(
            at: source.appendingPathComponent("network.json"),
            to: modules.appendingPathComponent("network.json")
        )
        let notify = try NotifySocket(directory: daemon.root)
        try daemon.start(
            extraArguments: ["--modules-dir", modules.path],
            environment: ["NOTIFY_SOCKET": notify.path]
        )
        _ = notify.wait(for: "READY=1")
        try "{ broken".write(to: modules.appendingPathComponent("network.json"), atomically: true, encoding: .utf8)
        try FileManager.default.copyItem(
            at: source.appendingPathComponent("power.json"),
            to: modules.appendingPathComponent("power.json")
        )
        daemon.signal(SIGHUP)
        let reload = try #require(notify.wait(for: "READY=1"))
        #expect(reload.joined().contains("STATUS=serving 2 modules"), "\(reload)")
        #expect(daemon.ctl(["get", "network.proxy.port"]).stdout == "3128\n")
        #expect(daemon.ctl(["get", "power.idle.blank-after"]).stdout == "300\n")
        #expect(daemon.log.contains("keeping the previous version"), "\(daemon.log)")
    }

    @Test("after a reload that changed a key's schema, get answers from the new one (no reply kept from before)")
    func reloadChangesSchema() throws {
        let daemon = try DaemonHarness()
        let modules = daemon.root.appendingPathComponent("modules")
        try FileManager.default.createDirectory(at: modules, withIntermediateDirectories: true)
        let network = modules.appendingPathComponent("network.json")
        let source = DaemonHarness.packageRoot.appendingPathComponent("config/modules/network.json")
        let schema = try String(contentsOf: source, encoding: .utf8)
        try schema.write(to: network, atomically: true, encoding: .utf8)
        let notify = try NotifySocket(directory: daemon.root)
        try daemon.start(
            extraArguments: ["--modules-dir", modules.path],
            environment: ["NOTIFY_SOCKET": notify.path]
        )
        _ = try #require(notify.wait(for: "READY=1"))
        // The same call several times: the daemon answers it again from the reply it made.
        for _ in 0..<3 {
            #expect(daemon.ctl(["--json", "get", "network.proxy.port"]).stdout.contains(#""title": "Port""#))
        }
        // A new title and range, the same default: no value changes, only the schema.
        let changed = schema.replacingOccurrences(
            of: #""id": "port", "title": "Port", "type": "int", "range": [1, 65535]"#,
            with: #""id": "port", "title": "Proxy port", "type": "int", "range": [1, 60000]"#
        )
        #expect(changed != schema)
        try changed.write(to: network, atomically: true, encoding: .utf8)
        daemon.signal(SIGHUP)
        _ = try #require(notify.wait(for: "READY=1"), "no READY=1 after reload; log:\n\(daemon.log)")
        let after = daemon.ctl(["--json", "get", "network.proxy.port"]).stdout
        #expect(after.contains(#""title": "Proxy port""#) && after.contains(#""maximum": 60000"#), "\(after)")
        #expect(daemon.ctl(["get", "network.proxy.port"]).stdout == "3128\n")
    }

    @Test("STATUS= follows the daemon: state files usable again, a schema file a reload rejected")
    func statusLineFollows() throws {
        let daemon = try DaemonHarness()
        let modules = daemon.root.appendingPathComponent("modules")
        try FileManager.default.copyItem(
            at: DaemonHarness.packageRoot.appendingPathComponent("config/modules"),
            to: modules
        )
        let journal = daemon.stateDirectory.appendingPathComponent("power.journal")
        try FileManager.default.createDirectory(at: journal, withIntermediateDirectories: true)
        let notify = try NotifySocket(directory: daemon.root)
        try daemon.start(
            extraArguments: ["--modules-dir", modules.path],
            environment: ["NOTIFY_SOCKET": notify.path]
        )
        let ready = try #require(notify.wait(for: "READY=1"))
        #expect(ready.joined().contains("STATE FILES UNUSABLE"), "\(ready)")
        // settingsctl status says it too, for an admin without systemd.
        let broken = daemon.ctl(["status"])
        #expect(broken.status == 0 && broken.stdout.contains("problems:\n  state files unusable: "), "\(broken)")
        #expect(broken.stdout.contains(journal.path), "\(broken)")
        try FileManager.default.removeItem(at: journal)
        let healed = notify.wait { $0.hasPrefix("STATUS=") && !$0.contains("STATE FILES UNUSABLE") }
        #expect(healed?.contains("serving 5 modules") == true, "no STATUS= without the problem; log:\n\(daemon.log)")
        let fine = daemon.ctl(["--json", "status"])
        #expect(fine.status == 0 && !fine.stdout.contains("problems"), "\(fine)")
        try "{ broken".write(to: modules.appendingPathComponent("power.json"), atomically: true, encoding: .utf8)
        daemon.signal(SIGHUP)
        let reloaded = try #require(notify.wait(for: "READY=1"))
        #expect(
            reloaded.joined().contains("SCHEMA REJECTED: \(modules.path)/power.json, served as before"),
            "\(reloaded)"
        )
        let rejected = daemon.ctl(["status"]).stdout
        #expect(
            rejected.contains(
                "  schema file rejected: \(modules.path)/power.json: $: line 1, column 3: expected a string as object key"
            ),
            "\(rejected)"
        )
    }
}
