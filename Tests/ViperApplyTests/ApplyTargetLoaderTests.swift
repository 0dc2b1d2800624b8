import Foundation
import Glibc
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
        (["reads": ["network"], "destination": "/etc/zz/."], "'destination' /etc/zz/. names a directory"),
        (["reads": ["network"], "destination": "/etc/zz/./"], "'destination' /etc/zz/./ names a directory"),
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
        (
            ["reads": ["network"], "destination": "/etc/x", "owner": "4294967295"],
            "'owner' names '4294967295', which this host does not have"
        ),
        (
            ["reads": ["network"], "destination": "/etc/x", "owner": ""],
            "'owner' is empty: give a user name or number, or leave the field out for root"
        ),
        (
            ["reads": ["network"], "destination": "/etc/x", "group": ""],
            "'group' is empty: give a group name or number, or leave the field out for root"
        ),
        (
            ["reads": ["network"], "destination": "/etc/x", "group": "no-such-group-here"],
            "'group' names 'no-such-group-here', which this host does not have"
        ),
        (
            ["reads": ["network"], "destination": "/etc/x", "group": 4_294_967_295],
            "'group' must be a name or a number"
        ),
        (["reads": ["network"], "destination": "/etc/x\nDNS=6.6.6.6"], "must not contain control characters"),
        (["reads": ["network"], "destination": "/etc/x", "mode": "+644"], "'mode' must be octal"),
        (["reads": ["network"], "destination": "/etc/x", "mode": "00644"], "'mode' must be octal"),
        (["reads": ["network"], "destination": "/etc/x", "mode": "64"], "'mode' must be octal"),
        (["reads": ["network"], "destination": "/etc/x", "mode": " 644"], "'mode' must be octal"),
        // A NUL would cut the string short where it reaches the system: `root\0x` would be root.
        (["reads": ["network"], "destination": "/etc/x", "owner": "root\u{0}x"], "'owner' contains a NUL character"),
        (["reads": ["network"], "destination": "/etc/x", "group": "root\u{0}x"], "'group' contains a NUL character"),
        (
            ["reads": ["network"], "destination": "/etc/x", "template": "bad.mustache\u{0}x"],
            "'template' contains a NUL character"
        ),
        (["reads": ["network"], "destination": "/etc/x", "check": ["true\u{0}x"]], "'check' contains a NUL character"),
        (["reads": ["network\u{0}"], "destination": "/etc/x"], "'reads' contains a NUL character"),
        (["reads": ["network"], "destination": "/etc/x\u{0}y"], "'destination' contains a NUL character"),
        // `.NAME.viper-apply.previous`, written beside the file, must fit in 255 bytes.
        (
            ["reads": ["network"], "destination": .string("/etc/" + String(repeating: "a", count: 234))],
            "its file name is 234 bytes long, and the longest that works is 233 bytes: beside it the applier writes"
                + " .NAME.viper-apply.previous, 22 bytes longer, and a file name can have at most 255 bytes"
        ),
        (
            ["reads": ["network"], "destination": .string("/etc/" + String(repeating: "é", count: 128))],
            "its file name is 256 bytes long, and the longest that works is 233 bytes"
        ),
        (
            ["reads": ["network"], "destination": .string("/" + String(repeating: "d", count: 256) + "/x")],
            "is 256 bytes long, more than the 255 bytes a file name can have"
        ),
        // The applier removes such names beside the files it writes.
        (
            ["reads": ["network"], "destination": "/etc/.x.viper-apply.AAAAAA"],
            "names like .NAME.viper-apply.* are the applier's own temporary and previous files"
        ),
        (["reads": ["network"], "destination": "/etc/.x.viper-apply.previous"], "the applier's own temporary"),
    ]

    static let badTemplates: [(String, String)] = [
        ("{{> name}}", "line 1, column 1: partial 'name': partials are not supported"),
        ("text\n  {{> /etc/hostname}}", "line 2, column 3: partial '/etc/hostname': partials are not supported"),
        ("{{<parent}}{{/parent}}", "line 1, column 1: partial 'parent': partials are not supported"),
        ("{{=<% %>=}}<%>name%>", "line 1, column 12: partial 'name': partials are not supported"),
        ("{{probe.s.v", "unclosed tag '{{' opened at line 1, column 1: its '}}' is missing"),
        ("ok {{x}}\n\n  {{#probe.s", "unclosed tag '{{' opened at line 3, column 3: its '}}' is missing"),
        ("x {{{probe.s.v}}", "unclosed tag '{{{' opened at line 1, column 3: its '}}}' is missing"),
        ("a {{*dynamic}} b", "line 1, column 3: '*dynamic' names no value"),
        (String(repeating: "{{x}}", count: 2001), "has 2001 tags, more than the 2000 a template may have"),
    ]

    @Test(
        "a template that is not UTF-8, holds a NUL byte or is larger than 1 MiB is refused, not changed on its way",
        arguments: [
            ([0x61, 0xFF, 0xFE, 0x62], "is not valid UTF-8 (at byte 2)"),
            (Array("é\u{0}".utf8), "contains a NUL byte (at byte 3)"),
            ([UInt8](repeating: 0x61, count: (1 << 20) + 1), "is larger than 1 MiB, the most a template may hold"),
        ]
    )
    func templateBytes(bytes: [UInt8], reason: String) async throws {
        try await TemporaryDirectory.with { directory in
            let folder = try TargetFolder(directory)
            try folder.write("bad", ["reads": ["network"], "destination": "/etc/x"], template: "x")
            try Data(bytes).write(to: URL(fileURLWithPath: "\(folder.path)/bad.mustache"))
            let loaded = try folder.load()
            #expect(loaded.targets.isEmpty)
            let problem = "\(loaded.problems.first.map { "\($0)" } ?? "")"
            #expect(problem.contains("the template \(folder.path)/bad.mustache \(reason)"), "\(problem)")
        }
        // Exactly 1 MiB of UTF-8 loads.
        try await TemporaryDirectory.with { directory in
            let folder = try TargetFolder(directory)
            try folder.write("ok", ["reads": ["network"], "destination": "/etc/x"], template: "x")
            try Data(repeating: 0x61, count: 1 << 20).write(to: URL(fileURLWithPath: "\(folder.path)/ok.mustache"))
            #expect(try folder.load().targets.map(\.name) == ["ok"])
        }
    }

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
            let loaded = try folder.load()
            #expect(loaded.targets.map(\.name) == ["good"])
            #expect(loaded.problems.count == 1)
            let problem = "\(loaded.problems.first.map { "\($0)" } ?? "")"
            #expect(problem.hasPrefix("\(folder.path)/bad.json: "), "\(problem)")
            #expect(problem.contains(reason), "\(problem)")
        }
    }

    @Test("a destination whose file name is 233 bytes long, the longest that works, loads and is applied")
    func longestDestinationName() async throws {
        try await TemporaryDirectory.with { directory in
            let folder = try TargetFolder(directory)
            let name = String(repeating: "n", count: 233)
            let destination = directory + "/etc/" + name
            try folder.write(
                "long",
                [
                    "reads": ["network"], "destination": .string(destination), "check": ["true"],
                    "reload": ["true"],
                ],
                template: "x"
            )
            let loaded = try folder.load()
            #expect(loaded.problems.isEmpty, "\(loaded.problems)")
            let target = try #require(loaded.targets.first)
            let applier = FileApplier(commands: CommandRunner(), scratchDirectory: directory)
            #expect(await applier.apply(target, rendered: "a = 1\n").result == .written)
            // Replacing it keeps the previous file under `.NAME.viper-apply.previous` during the reload.
            let replaced = await applier.apply(target, rendered: "a = 2\n")
            #expect(replaced.result == .written, "\(replaced)")
            #expect(try Files.read(destination) == "a = 2\n")
            #expect(Files.list(directory + "/etc") == [name])
        }
    }

    @Test(
        "a template with a partial or an unclosed tag is refused, naming the template, where and why",
        arguments: Self.badTemplates
    )
    func badTemplate(template: String, reason: String) async throws {
        try await TemporaryDirectory.with { directory in
            let folder = try TargetFolder(directory)
            try folder.write("bad", ["reads": ["network"], "destination": "/etc/x"], template: template)
            let loaded = try folder.load()
            #expect(loaded.targets.isEmpty)
            let problem = "\(loaded.problems.first.map { "\($0)" } ?? "")"
            #expect(problem.hasPrefix("\(folder.path)/bad.json: template \(folder.path)/bad.mustache: "), "\(problem)")
            #expect(problem.contains(reason), "\(problem)")
        }
    }

    @Test("a template that is a symbolic link (to /etc/passwd, or beside it) or not a regular file is refused")
    func templateNotARegularFile() async throws {
        try await TemporaryDirectory.with { directory in
            let folder = try TargetFolder(directory)
            let fields: JSONValue = ["reads": ["network"], "destination": "/etc/x"]
            try folder.write("outside", fields, template: "")
            try folder.write("beside", fields, template: "")
            try folder.write("fifo", fields, template: "")
            for name in ["outside", "beside", "fifo"] {
                try FileManager.default.removeItem(atPath: "\(folder.path)/\(name).mustache")
            }
            try FileManager.default.createSymbolicLink(
                atPath: folder.path + "/outside.mustache",
                withDestinationPath: "/etc/passwd"
            )
            try Files.write("x", to: folder.path + "/real.template")
            try FileManager.default.createSymbolicLink(
                atPath: folder.path + "/beside.mustache",
                withDestinationPath: "real.template"
            )
            #expect(mkfifo(folder.path + "/fifo.mustache", 0o600) == 0)
            let loaded = try folder.load()
            #expect(loaded.targets.isEmpty)
            let problems = loaded.problems.map { "\($0)" }
            for name in ["outside", "beside"] {
                #expect(
                    problems.contains {
                        $0.hasPrefix(
                            "\(folder.path)/\(name).json: the template \(folder.path)/\(name).mustache is a symbolic link"
                        )
                    },
                    "\(problems)"
                )
            }
            #expect(
                problems.contains {
                    $0.hasPrefix("\(folder.path)/fifo.json:") && $0.contains("it is a FIFO, not a regular file")
                },
                "\(problems)"
            )
        }
    }

    @Test("a template that does not parse, a file that is not JSON, two targets writing one file")
    func brokenFiles() async throws {
        try await TemporaryDirectory.with { directory in
            let folder = try TargetFolder(directory)
            try folder.write("unclosed", ["reads": ["network"], "destination": "/etc/a"], template: "{{#network}}")
            try folder.write(
                "misclosed",
                ["reads": ["network"], "destination": "/etc/b"],
                template: "a\n{{#network.dns}}\n{{#network.proxy}}x\n {{/network.dns}}\n{{/network.proxy}}\n"
            )
            try Files.write("{ not json", to: folder.path + "/garbled.json")
            try folder.write("first", ["reads": ["network"], "destination": "/etc/same"], template: "x")
            try folder.write("second", ["reads": ["network"], "destination": "/etc/same"], template: "x")
            // The same file spelt otherwise is the same file.
            try folder.write("third", ["reads": ["network"], "destination": "/etc/./same"], template: "x")
            try folder.write("fourth", ["reads": ["network"], "destination": "//etc//same"], template: "x")
            let loaded = try folder.load()
            #expect(loaded.targets.map(\.name) == ["first"])
            let problems = loaded.problems.map { "\($0)" }.sorted()
            #expect(problems.count == 6, "\(problems)")
            #expect(
                problems.contains {
                    $0.contains(
                        "misclosed.json: template \(folder.path)/misclosed.mustache: line 4, column 2: {{/network.dns}}"
                            + " closes the section 'network.proxy' opened at line 3, column 1: close it with"
                            + " {{/network.proxy}}"
                    )
                },
                "\(problems)"
            )
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
                        && $0.contains(
                            "line 1, column 1: the section 'network' opened here is not closed: its {{/network}} is missing"
                        )
                },
                "\(problems)"
            )
        }
    }

    @Test("at a reload, the target applying a file keeps it; one added that names it too (spelt otherwise) is refused")
    func runningTargetKeepsItsFile() async throws {
        try await TemporaryDirectory.with { directory in
            let folder = try TargetFolder(directory)
            try folder.write(
                "zz",
                ["reads": ["network"], "destination": "/etc/zz.conf", "mode": "0600"],
                template: "z"
            )
            let running = try folder.load().targets
            #expect(running.map(\.name) == ["zz"])
            try folder.write("aa", ["reads": ["network"], "destination": "/etc/./zz.conf"], template: "a")
            let reloaded = try folder.load(running: running)
            #expect(reloaded.targets.map(\.name) == ["zz"])
            #expect(
                reloaded.problems.map { "\($0)" } == [
                    "\(folder.path)/aa.json: destination /etc/zz.conf is also target zz's, which applies it already: it"
                        + " keeps the file, left as it is; give this target another destination"
                ]
            )
            // At start, with nothing running, the first in file-name order keeps it, whichever was there first.
            let started = try folder.load()
            #expect(started.targets.map(\.name) == ["aa"])
            #expect(
                started.problems.map { "\($0)" } == [
                    "\(folder.path)/zz.json: destination /etc/zz.conf is also target aa's, which comes first in"
                        + " file-name order and keeps it; give this target another destination"
                ]
            )
            // A running target that moves elsewhere leaves its file to the one that names it now.
            try folder.write("zz", ["reads": ["network"], "destination": "/etc/other.conf"], template: "z")
            let moved = try folder.load(running: running)
            #expect(moved.targets.map(\.name) == ["aa", "zz"] && moved.problems.isEmpty, "\(moved.problems)")
            // Two running targets that swap their files are both loaded: neither still names its own.
            let both = moved.targets
            try folder.write("aa", ["reads": ["network"], "destination": "/etc/other.conf"], template: "a")
            try folder.write("zz", ["reads": ["network"], "destination": "/etc/zz.conf"], template: "z")
            let swapped = try folder.load(running: both)
            #expect(swapped.targets.map(\.name) == ["aa", "zz"] && swapped.problems.isEmpty, "\(swapped.problems)")
            // A running target that moves onto the file of another is refused: that one keeps it.
            try folder.write("aa", ["reads": ["network"], "destination": "/etc/zz.conf"], template: "a")
            let onto = try folder.load(running: swapped.targets)
            #expect(onto.targets.map(\.name) == ["zz"])
            #expect(
                onto.problems.map { "\($0)" }.first?.contains(
                    "aa.json: destination /etc/zz.conf is also target zz's, which applies it already"
                ) == true,
                "\(onto.problems)"
            )
        }
    }

    @Test("a targets directory that is missing or not a directory is an error with the system's reason")
    func unreadableDirectory() async throws {
        try await TemporaryDirectory.with { directory in
            let missing = directory + "/nowhere"
            let error = #expect(throws: ApplyError.self) { try ApplyTargetLoader(directory: missing).load() }
            #expect(
                error?.description
                    == "cannot read the targets directory \(missing) (--targets-dir): No such file or directory"
            )
            let file = directory + "/file"
            try Files.write("", to: file)
            let notDirectory = #expect(throws: ApplyError.self) { try ApplyTargetLoader(directory: file).load() }
            #expect(
                notDirectory?.description
                    == "cannot read the targets directory \(file) (--targets-dir): Not a directory"
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
            let loaded = try folder.load(root: root)
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
