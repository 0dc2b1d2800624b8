import Foundation
import SettingsAPI
import Testing

/// A value is stored as it was given, byte for byte: another spelling that merely looks the same (Unicode's two
/// spellings of "é", -0.0 beside 0.0) is a change, stored, printed back, told to watchers and carried by dump and
/// load. The real daemon and settingsctl; texts compared as bytes, as Swift's `==` would find the spellings equal.
@Suite("Values are stored exactly, not as whatever looks equal", .serialized)
struct ExactValueTests {
    static let composed = "caf\u{E9}"  // "é" as one code point, U+00E9 (NFC)
    static let decomposed = "cafe\u{301}"  // "e" and U+0301 COMBINING ACUTE ACCENT (NFD)

    /// A daemon serving one module, `t`, with a string `t.s.str` and a double `t.s.num` that takes 0.
    static func daemon() throws -> DaemonHarness {
        let daemon = try DaemonHarness()
        let modules = daemon.root.appendingPathComponent("modules")
        try FileManager.default.createDirectory(at: modules, withIntermediateDirectories: true)
        let schema = """
            {"module": "t", "title": "T", "description": "Exact values",
             "sections": [{"id": "s", "title": "S", "items": [
               {"id": "str", "type": "string", "default": ""},
               {"id": "num", "type": "double", "range": [-1.0, 1.0], "default": 0.5}]}]}
            """
        try Data(schema.utf8).write(to: modules.appendingPathComponent("t.json"))
        try daemon.start(extraArguments: ["--modules-dir", modules.path])
        return daemon
    }

    /// Whether `text` has exactly the bytes of `expected`.
    static func same(_ text: String?, _ expected: String) -> Bool {
        text.map { Array($0.utf8) == Array(expected.utf8) } ?? false
    }

    @Test("another Unicode spelling, or -0.0 after 0.0, is stored, printed back as given and told to a watcher")
    func setStoresTheOtherSpelling() throws {
        let daemon = try Self.daemon()
        let watch = try SettingsctlWatchTests.watch(daemon, ["--json", "watch", "t"])
        #expect(watch.wait { $0.stdout.contains(#""event":"ready""#) }, "\(watch.stdout)\(watch.stderr)")

        #expect(daemon.ctl(["set", "t.s.str", Self.composed]).status == 0)
        let other = daemon.ctl(["set", "t.s.str", Self.decomposed])
        #expect(other.status == 0 && !other.stdout.contains("unchanged"), "\(other)")
        #expect(Self.same(daemon.ctl(["get", "t.s.str"]).stdout, Self.decomposed + "\n"))
        #expect(daemon.ctl(["set", "t.s.num", "0.0"]).status == 0)
        let negative = daemon.ctl(["set", "t.s.num", "--", "-0.0"])
        #expect(negative.status == 0 && !negative.stdout.contains("unchanged"), "\(negative)")
        #expect(daemon.ctl(["get", "t.s.num"]).stdout == "-0.0\n")
        // Set again as it is now: that is no change.
        #expect(daemon.ctl(["set", "t.s.str", Self.decomposed]).stdout.contains("unchanged"))

        func changes() throws -> [JSONValue] {
            try watch.lines.map { try JSONValue(parsing: $0) }.filter { $0["event"] == "change" }
        }
        #expect(watch.wait { _ in ((try? changes()) ?? []).count >= 4 }, "\(watch.stdout)")
        let seen = try changes()
        #expect(seen.count == 4, "\(watch.stdout)")
        #expect(seen.count == 4 && Self.same(seen[1]["value"]?.stringValue, Self.decomposed), "\(seen)")
        #expect(seen.count == 4 && Self.same(seen[1]["old"]?.stringValue, Self.composed), "\(seen)")
        #expect(seen.count == 4 && seen[3]["value"] == .double(-0.0) && seen[3]["old"] == .double(0.0), "\(seen)")
        watch.stop()
        #expect(daemon.stop() == 0)
    }

    @Test("a dump holding the other spelling loads as a change and is stored byte for byte")
    func loadCarriesTheExactValue() throws {
        let daemon = try Self.daemon()
        #expect(daemon.ctl(["set", "t.s.str", Self.decomposed]).status == 0)
        #expect(daemon.ctl(["set", "t.s.num", "--", "-0.0"]).status == 0)
        let dump = daemon.ctl(["dump", "t"])
        #expect(dump.status == 0, "\(dump)")
        let values = try JSONValue(parsing: dump.stdout)["modules"]?["t"]?["values"]
        #expect(Self.same(values?["s.str"]?.stringValue, Self.decomposed), "\(dump.stdout)")
        #expect(values?["s.num"] == .double(-0.0), "\(dump.stdout)")
        let path = daemon.root.appendingPathComponent("t.json").path
        try Data(dump.stdout.utf8).write(to: URL(fileURLWithPath: path))

        #expect(daemon.ctl(["set", "t.s.str", Self.composed]).status == 0)
        #expect(daemon.ctl(["set", "t.s.num", "0.0"]).status == 0)
        let preview = daemon.ctl(["load", "--dry-run", path])
        #expect(preview.status == 0 && !preview.stdout.contains("no change"), "\(preview)")
        let load = daemon.ctl(["load", path])
        #expect(load.status == 0 && load.stdout.contains("t: loaded"), "\(load)")
        #expect(load.stdout.contains("t.s.str:") && load.stdout.contains("t.s.num: 0.0 -> -0.0"), "\(load)")
        #expect(Self.same(daemon.ctl(["get", "t.s.str"]).stdout, Self.decomposed + "\n"))
        #expect(daemon.ctl(["get", "t.s.num"]).stdout == "-0.0\n")
        #expect(daemon.ctl(["load", path]).stdout.contains("t: no change"), "loading it again changes nothing")
        #expect(daemon.stop() == 0)
    }
}
