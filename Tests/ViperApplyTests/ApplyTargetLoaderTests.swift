import Foundation
import SettingsAPI
import Testing
import ViperTestSupport

@testable import ViperApply

@Suite("Loading targets")
struct ApplyTargetLoaderTests {
    static let badTargets: [(JSONValue, String)] = [

        (["reads": ["network"], "destination": "/etc/x", "colour": "red"], "unknown field 'colour'"),
        (["destination": "/etc/x"], "'reads' must be a non-empty list"),
        (["reads": [], "destination": "/etc/x"], "'reads' must be a non-empty list"),
        (["reads": ["network"], "destination": "etc/x"], "'destination' must be an absolute path"),
        (["reads": ["network"], "destination": "/etc/../x"], "'destination' must be an absolute path"),
        (["reads": ["network"], "destination": "/etc/x", "owner": "no-such-user-here"], "no-such-user-here"),
        (["reads": ["network"], "destination": "/etc/x", "mode": "0999"], "'mode' must be octal"),
        (["reads": ["network"], "destination": "/etc/x", "mode": 420], "'mode' must be octal"),
        (["reads": ["network"], "destination": "/etc/x", "check": []], "'check' must be a command"),
        (["reads": ["network"], "destination": "/etc/x", "reload": "systemctl"], "'reload' must be a command"),
        (["reads": ["network"], "destination": "/etc/x", "template": "missing.mustache"], "cannot read the template"),
        (
            ["reads": ["network"], "destination": "/etc/x", "template": "/etc/shadow"],
            "'template' must name a template file in the targets directory"
        ),
        (
            ["reads": ["network"], "destination": "/etc/x", "template": "../x.mustache"],
            "'template' must name a template file in the targets directory"
        ),
        (["reads": ["network"], "destination": "/etc/x", "mode": "04755"], "no setuid"),
        (["reads": ["network"], "destination": "/etc/x", "owner": "4294967295"], "which this host does not have"),
        (
            ["reads": ["network"], "destination": "/etc/x", "group": 4_294_967_295],
            "'group' must be a name or a number"
        ),
        (["reads": ["network"], "destination": "/etc/x\nDNS=6.6.6.6"], "must not contain control characters"),
    ]

    @Test("a good target loads with its defaults: root:root, 0644, no check, no reload")
    func goodTarget() async throws {
        try await TemporaryDirectory.with { directory in
            let folder = try TargetFolder(directory)
            try folder.write("dns", ["reads": ["network.dns"], "destination": "/etc/x.conf"], template: "x")
            let target = try folder.target("dns", root: "/image")
            #expect(target.destination == "/image/etc/x.conf")
            #expect((target.owner, target.group, target.mode) == (0, 0, 0o644))
            #expect(target.check == nil && target.reload == nil)
            #expect(target.reads(key: "network.dns.servers") && !target.reads(key: "network.dnssec"))
        }
    }

    @Test(
        "a bad target names its file and what is wrong, and the others still load",
        arguments: Self.badTargets
    )
    func badTarget(fields: JSONValue, reason: String) async throws {
        try await TemporaryDirectory.with { directory in
            let folder = try TargetFolder(directory)
            try folder.write("bad", fields, template: "x")
            try folder.write("good", ["reads": ["network"], "destination": "/etc/good"], template: "x")
            let loaded = folder.load()
            #expect(loaded.targets.map(\.name) == ["good"])
            #expect(loaded.problems.count == 1)
            let problem = "\(loaded.problems.first.map { "\($0)" } ?? "")"
            #expect(problem.hasPrefix("\(folder.path)/bad.json: "), "\(problem)")
            #expect(problem.contains(reason), "\(problem)")
        }
    }

    @Test("a template that does not parse, a file that is not JSON, two targets writing one file")
    func brokenFiles() async throws {
        try await TemporaryDirectory.with { directory in
            let folder = try TargetFolder(directory)
            try folder.write("unclosed", ["reads": ["network"], "destination": "/etc/a"], template: "{{#network}}")
            try Files.write("{ not json", to: folder.path + "/garbled.json")
            try folder.write("first", ["reads": ["network"], "destination": "/etc/same"], template: "x")
            try folder.write("second", ["reads": ["network"], "destination": "/etc/same"], template: "x")
            // The same file spelt otherwise is the same file.
            try folder.write("third", ["reads": ["network"], "destination": "/etc/./same"], template: "x")
            try folder.write("fourth", ["reads": ["network"], "destination": "//etc//same"], template: "x")
            let loaded = folder.load()
            #expect(loaded.targets.map(\.name) == ["first"])
            let problems = loaded.problems.map { "\($0)" }.sorted()
            #expect(problems.count == 5, "\(problems)")
            #expect(problems.contains { $0.contains("garbled.json: not JSON") }, "\(problems)")
            for other in ["second", "third", "fourth"] {
                #expect(
                    problems.contains { $0.contains("\(other).json: destination /etc/same is also target first's") },
                    "\(problems)"
                )
            }
            #expect(
                problems.contains {
                    $0.contains("unclosed.json: template")
                        && $0.contains("a section is not closed: its {{/NAME}} is missing")
                },
                "\(problems)"
            )
        }
    }

    @Test("two destinations that are one file through a directory's symbolic link are refused as one")
    func sameFileThroughALink() async throws {
        try await TemporaryDirectory.with { directory in
            let folder = try TargetFolder(directory)
            let root = directory + "/root"
            try FileManager.default.createDirectory(atPath: root + "/real", withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(atPath: root + "/alias", withDestinationPath: "real")
            try folder.write("a", ["reads": ["network"], "destination": "/real/x.conf"], template: "a")
            try folder.write("b", ["reads": ["network"], "destination": "/alias/x.conf"], template: "b")
            let loaded = folder.load(root: root)
            #expect(loaded.targets.map(\.name) == ["a"])
            #expect(
                loaded.problems.map { "\($0)" }.contains { $0.contains("b.json: destination") },
                "\(loaded.problems)"
            )
        }
    }

    @Test("check replaces {file} with the rendered file's path, or appends it")
    func checkCommand() async throws {
        try await TemporaryDirectory.with { directory in
            let folder = try TargetFolder(directory)
            try folder.write(
                "a",
                ["reads": ["n"], "destination": "/a", "check": ["apt-config", "-c", "{file}", "dump"]],
                template: ""
            )
            try folder.write("b", ["reads": ["n"], "destination": "/b", "check": ["test", "-s"]], template: "")
            #expect(try folder.target("a").checkCommand(for: "/t") == ["apt-config", "-c", "/t", "dump"])
            #expect(try folder.target("b").checkCommand(for: "/t") == ["test", "-s", "/t"])
        }
    }
}
