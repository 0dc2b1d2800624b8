import Foundation
import SettingsAPI
import Testing

/// settingsctl watch against the real daemon: the lines a user sees, and resuming across a restart.
@Suite("settingsctl watch", .serialized)
struct SettingsctlWatchTests {
    static func watch(_ daemon: DaemonHarness, _ arguments: [String]) throws -> BackgroundCommand {
        try BackgroundCommand(
            [daemon.binDirectory.appendingPathComponent("settingsctl").path, "--socket", daemon.socketPath]
                + arguments
        )
    }

    @Test("current values, then each change with who made it; across a restart it reconnects and misses nothing")
    func followsAcrossRestart() throws {
        let daemon = try DaemonHarness()
        try daemon.start()
        #expect(daemon.ctl(["set", "network.proxy.port", "3129"]).status == 0)
        let watch = try Self.watch(daemon, ["watch", "network.proxy.port", "display"])
        #expect(watch.wait { $0.stdout.contains("-- watching for changes") }, "\(watch.stdout)\(watch.stderr)")
        #expect(watch.lines.contains("network.proxy.port = 3129 (local)"), "\(watch.lines)")
        #expect(watch.lines.contains("display.output.scale = 1.0 (default)"), "\(watch.lines)")
        #expect(daemon.ctl(["set", "network.proxy.mode", "auto"]).status == 0)  // not watched
        #expect(daemon.ctl(["set", "network.proxy.port", "3130"]).status == 0)
        #expect(watch.wait { $0.stdout.contains("3129 -> 3130") }, "\(watch.stdout)")
        let change = watch.lines.last ?? ""
        #expect(change.hasPrefix("network.proxy.port: 3129 -> 3130 (local; uid \(getuid()), pid "), "\(change)")
        #expect(change.contains("revision 3") && change.hasSuffix("[cursor display:0,network:3]"), "\(change)")
        #expect(!watch.stdout.contains("proxy.mode"))

        #expect(daemon.stop() == 0)
        #expect(watch.wait { $0.stderr.contains("lost the connection") }, "\(watch.stderr)")
        try daemon.start()
        // Made after the restart, before or after watch is back: either way it is printed once.
        #expect(daemon.ctl(["set", "network.proxy.port", "3131"]).status == 0)
        #expect(daemon.ctl(["set", "display.output.scale", "1.5"]).status == 0)
        #expect(watch.wait { $0.stdout.contains("1.0 -> 1.5") }, "\(watch.stdout)\(watch.stderr)")
        #expect(watch.stderr.contains("reconnected to the settings daemon, resuming after cursor display:0,network:3"))
        let changes = watch.lines.filter { $0.contains(" -> ") }
        #expect(changes.count == 3, "each change once: \(changes)")
        #expect(changes.contains { $0.contains("3130 -> 3131") }, "\(changes)")
        watch.stop()
        #expect(daemon.stop() == 0)
    }

    @Test("--json --after prints exactly the changes after the cursor, then ready; a bad cursor is exit 2")
    func resumeAfterCursor() throws {
        let daemon = try DaemonHarness()
        try daemon.start()
        #expect(daemon.ctl(["set", "network.proxy.port", "4001"]).status == 0)
        #expect(daemon.ctl(["set", "network.proxy.port", "4002"]).status == 0)
        #expect(daemon.ctl(["set", "network.proxy.port", "4003"]).status == 0)
        let watch = try Self.watch(daemon, ["--json", "watch", "--after", "network:1", "network"])
        #expect(watch.wait { $0.stdout.contains("\"ready\"") }, "\(watch.stdout)\(watch.stderr)")
        let events = try watch.lines.map { try JSONValue(parsing: $0) }
        #expect(events.map { $0["event"]?.stringValue ?? "?" } == ["change", "change", "ready"], "\(watch.lines)")
        #expect(events.first?["old"] == 4001 && events.first?["value"] == 4002)
        #expect(events.first?["cause"] == "client" && events.first?["uid"] == .int(Int64(getuid())))
        #expect(events.last?["cursor"] == "network:3")
        watch.stop()
        let settingsctl = daemon.binDirectory.appendingPathComponent("settingsctl").path
        for cursor in ["bogus", "network:01", "network:+1", " network:1", "network:1.0,display:0"] {
            // Bounded: a cursor taken by mistake would start a watch that never ends.
            let bad = DaemonHarness.run([
                "/usr/bin/timeout", "20", settingsctl, "--socket", daemon.socketPath, "watch", "--after", cursor,
                "network",
            ])
            #expect(bad.status == 2, "\(cursor): \(bad)")
            #expect(bad.stderr.contains("'\(cursor)' is not a cursor"), "\(cursor): \(bad)")
        }
        #expect(daemon.stop() == 0)
    }
}
