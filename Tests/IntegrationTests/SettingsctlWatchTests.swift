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
        #expect(
            change.contains("revision 3") && change.hasSuffix("[cursor \(daemon.history)/display:0,network:3]"),
            "\(change)"
        )
        #expect(!watch.stdout.contains("proxy.mode"))

        #expect(daemon.stop() == 0)
        #expect(watch.wait { $0.stderr.contains("lost the connection") }, "\(watch.stderr)")
        try daemon.start()
        // Made after the restart, before or after watch is back: either way it is printed once.
        #expect(daemon.ctl(["set", "network.proxy.port", "3131"]).status == 0)
        #expect(daemon.ctl(["set", "display.output.scale", "1.5"]).status == 0)
        #expect(watch.wait { $0.stdout.contains("1.0 -> 1.5") }, "\(watch.stdout)\(watch.stderr)")
        #expect(
            watch.stderr.contains(
                "reconnected to the settings daemon, resuming after cursor \(daemon.history)/display:0,network:3"
            )
        )
        let changes = watch.lines.filter { $0.contains(" -> ") }
        #expect(changes.count == 3, "each change once: \(changes)")
        #expect(changes.contains { $0.contains("3130 -> 3131") }, "\(changes)")
        watch.stop()
        #expect(daemon.stop() == 0)
    }

    @Test(
        "a module whose state files cannot be used is not told to watchers (an applier would write its defaults); it comes back once they can"
    )
    func unusableStateNotWatched() throws {
        let daemon = try DaemonHarness()
        try daemon.start()
        #expect(daemon.ctl(["set", "network.proxy.port", "3129"]).status == 0)
        #expect(daemon.ctl(["set", "display.output.scale", "2"]).status == 0)
        #expect(daemon.stop() == 0)
        // Its journal, which holds the value set, can no longer be read: the module serves its defaults.
        let journal = daemon.stateDirectory.appendingPathComponent("network.journal")
        let aside = daemon.stateDirectory.appendingPathComponent("network.journal.aside")
        try FileManager.default.moveItem(at: journal, to: aside)
        try FileManager.default.createDirectory(at: journal, withIntermediateDirectories: true)
        try daemon.start()
        let watch = try Self.watch(daemon, ["--json", "watch", "network", "display"])
        #expect(watch.wait { $0.stdout.contains("\"ready\"") }, "\(watch.stdout)\(watch.stderr)")
        let events = try watch.lines.map { try JSONValue(parsing: $0) }
        #expect(events.contains { $0["key"] == "display.output.scale" && $0["value"] == 2.0 }, "\(watch.lines)")
        #expect(!events.contains { $0["key"]?.stringValue?.hasPrefix("network.") == true }, "\(watch.lines)")
        #expect(events.last?["cursor"]?.stringValue == "\(daemon.history)/display:1", "\(watch.lines)")
        watch.stop()
        // Resuming from a cursor that names it: a resync that says why, then the other modules' values.
        let resumed = try Self.watch(
            daemon,
            ["--json", "watch", "--after", "display:1,network:1", "network", "display"]
        )
        #expect(resumed.wait { $0.stdout.contains("\"ready\"") }, "\(resumed.stdout)\(resumed.stderr)")
        let first = try JSONValue(parsing: resumed.lines.first ?? "")
        #expect(first["event"] == "resync", "\(resumed.lines)")
        #expect(
            first["reason"]?.stringValue?.contains("the state files of module network cannot be used") == true,
            "\(resumed.lines)"
        )
        // Fixed: the next write reads the files again, watchers start over with the module's stored values.
        try FileManager.default.removeItem(at: journal)
        try FileManager.default.moveItem(at: aside, to: journal)
        #expect(daemon.ctl(["set", "network.proxy.mode", "auto"]).status == 0)
        #expect(
            resumed.wait { $0.stdout.contains("\"network.proxy.port\"") && $0.stdout.contains("3129") },
            "\(resumed.stdout)\(resumed.stderr)"
        )
        resumed.stop()
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
        // The cursor names the state directory's history (STATE/history), then the positions.
        #expect(events.last?["cursor"]?.stringValue == "\(daemon.history)/network:3", "\(daemon.history)")
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

    @Test("a cursor of the state before a reset, at revisions the new state reached, starts over with a resync")
    func cursorOfResetState() throws {
        let daemon = try DaemonHarness()
        try daemon.start()
        #expect(daemon.ctl(["set", "network.proxy.port", "4001"]).status == 0)
        let first = try Self.watch(daemon, ["--json", "watch", "network.proxy.port"])
        #expect(first.wait { $0.stdout.contains("\"ready\"") }, "\(first.stdout)\(first.stderr)")
        let old = try #require(try first.lines.map { try JSONValue(parsing: $0) }.last?["cursor"]?.stringValue)
        first.stop()
        #expect(daemon.stop() == 0)
        // The state reset: the daemon starts over at revision 0, then moves past the old cursor's revision.
        try FileManager.default.removeItem(at: daemon.stateDirectory)
        try daemon.start()
        for port in ["5001", "5002", "5003"] {
            #expect(daemon.ctl(["set", "network.proxy.port", port]).status == 0)
        }
        let resumed = try Self.watch(daemon, ["--json", "watch", "--after", old, "network.proxy.port"])
        #expect(resumed.wait { $0.stdout.contains("\"ready\"") }, "\(resumed.stdout)\(resumed.stderr)")
        let events = try resumed.lines.map { try JSONValue(parsing: $0) }
        #expect(events.map { $0["event"]?.stringValue ?? "?" } == ["resync", "current", "ready"], "\(resumed.lines)")
        let reason = events.first?["reason"]?.stringValue ?? ""
        #expect(reason.contains("another state directory, or of this one before its state was reset"), "\(reason)")
        #expect(events.dropFirst().first?["value"] == 5003)
        let new = try #require(events.last?["cursor"]?.stringValue)
        #expect(new.hasSuffix("/network:3") && new.prefix(8) != old.prefix(8), "\(old) -> \(new)")
        resumed.stop()
        #expect(daemon.stop() == 0)
    }
}
