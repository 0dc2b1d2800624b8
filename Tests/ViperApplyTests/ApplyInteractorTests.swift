import Foundation
import Glibc
import Logging
import SettingsAPI
import Testing
import ViperTestSupport

@testable import ViperApply

@Suite("The applier's Interactor: events in, files out, cursor kept")
struct ApplyInteractorTests {
    static func current(_ key: String, _ value: JSONValue, cursor: String) -> WatchEventViewModel {
        var event = WatchEventViewModel(event: .current, cursor: cursor)
        event.key = key
        event.value = value
        event.revision = Int64(cursor.split(separator: ":").last ?? "")  // the tests' cursors name one module
        return event
    }

    static func change(_ key: String, _ value: JSONValue, cursor: String) -> WatchEventViewModel {
        var event = WatchEventViewModel(event: .change, cursor: cursor)
        event.key = key
        event.value = value
        event.revision = Int64(cursor.split(separator: ":").last ?? "")  // the tests' cursors name one module
        return event
    }

    static func ready(_ cursor: String) -> WatchEventViewModel { WatchEventViewModel(event: .ready, cursor: cursor) }

    struct Fixture {
        let directory: String
        let folder: TargetFolder
        var dns: String { self.directory + "/root/etc/dns.conf" }
        var proxy: String { self.directory + "/root/etc/proxy.conf" }

        init(_ directory: String) throws {
            self.directory = directory
            self.folder = try TargetFolder(directory)
            try self.folder.write(
                "dns",
                ["reads": ["network.dns"], "destination": "/etc/dns.conf"],
                template:
                    "DNS={{#network.dns.servers}}{{.}}{{^last()}} {{/last()}}{{/network.dns.servers}} r{{revision.network}}\n"
            )
            try self.folder.write(
                "proxy",
                ["reads": ["network.proxy.host"], "destination": "/etc/proxy.conf"],
                template: "host={{network.proxy.host}}\n"
            )
            try self.folder.write("broken", ["reads": [], "destination": "/etc/x"], template: "")
        }

        func interactor() async throws -> ApplyInteractor {
            let interactor = ApplyInteractor(
                applier: FileApplier(commands: CommandRunner(), scratchDirectory: self.directory),
                store: ApplyStateStore(path: self.directory + "/state.json"),
                clock: .init { 1_800_000_000 },
                logger: Logger(label: "test")
            )
            try await interactor.replace(targets: self.folder.load(root: self.directory + "/root"))
            return interactor
        }
    }

    @Test("nothing is written before the current values are complete; then every target, then each change")
    func followsEvents() async throws {
        try await TemporaryDirectory.with { directory in
            let fixture = try Fixture(directory)
            let interactor = try await fixture.interactor()
            await interactor.receivedAndApplied([
                Self.current("network.dns.servers", [], cursor: "network:4"),
                Self.current("network.proxy.host", "a.example", cursor: "network:4"),
            ])
            #expect(!Files.exists(fixture.dns))
            await interactor.receivedAndApplied([Self.ready("network:4")])
            #expect(try Files.read(fixture.dns) == "DNS= r4\n")
            #expect(try Files.read(fixture.proxy) == "host=a.example\n")
            #expect(await interactor.isSettled)

            await interactor.receivedAndApplied([
                Self.change("network.dns.servers", ["9.9.9.9"], cursor: "network:5"),
                Self.change("network.dns.servers", ["9.9.9.9", "1.1.1.1"], cursor: "network:6"),
            ])
            #expect(try Files.read(fixture.dns) == "DNS=9.9.9.9 1.1.1.1 r6\n")
            let status = await interactor.status()
            #expect(status.cursor == "network:6")
            #expect(status.problems.count == 1 && status.problems[0].file.hasSuffix("broken.json"))
            // A target reading something the daemon does not have is loaded, and reported.
            try fixture.folder.write("typo", ["reads": ["network.dsn"], "destination": "/etc/typo"], template: "")
            try await interactor.replace(targets: fixture.folder.load(root: fixture.directory + "/root"))
            let typo = await interactor.status().warnings.first { $0.file.hasSuffix("typo.json") }
            #expect(typo?.reason.contains("'reads' names network.dsn, which the settings daemon does not have") == true)
            #expect(await interactor.status().problems.count == 1, "loaded, so not refused: a warning")
            // So is a template naming a key the daemon does not have, or one its reads leave out.
            try fixture.folder.write(
                "names",
                ["reads": ["network.dns"], "destination": "/etc/names"],
                template:
                    "{{network.dns.sever}} {{#network.dns.servers}}{{.}}{{/network.dns.servers}} {{network.proxy.host}}"
            )
            try await interactor.replace(targets: fixture.folder.load(root: fixture.directory + "/root"))
            let names = await interactor.status().warnings.filter { $0.file.hasSuffix("names.json") }.map(\.reason)
            #expect(
                names == [
                    "the template names network.dns.sever, which the settings daemon does not have: it renders as empty",
                    "the template names network.proxy.host, which 'reads' leaves out: it renders as empty",
                ]
            )
            #expect(await interactor.status().targets.contains { $0.target == "typo" })
            let dns = status.targets.first { $0.target == "dns" }?.last
            #expect(dns?.result == "written" && dns?.revisions == ["network": 6] && dns?.at == 1_800_000_000)
            #expect(dns?.keys == ["network.dns.servers"])
        }
    }

    @Test("a target reading a module the daemon does not serve keeps its file, failing with why, until it does")
    func moduleNotServed() async throws {
        try await TemporaryDirectory.with { directory in
            let fixture = try Fixture(directory)
            try fixture.folder.write(
                "power",
                ["reads": ["power.sleep"], "destination": "/etc/power.conf"],
                template: "idle={{power.sleep.idle}}\n"
            )
            let file = directory + "/root/etc/power.conf"
            try Files.write("idle=15\n", to: file)
            let interactor = try await fixture.interactor()
            await interactor.receivedAndApplied([
                Self.current("network.dns.servers", [], cursor: "network:4"),
                Self.current("network.proxy.host", "a.example", cursor: "network:4"),
                Self.ready("network:4"),
            ])
            #expect(try Files.read(file) == "idle=15\n", "not blanked: the module is not served")
            let power = await interactor.status().targets.first { $0.target == "power" }?.last
            #expect(power?.result == "failed")
            #expect(power?.error?.contains("does not serve module power") == true)
            #expect(await interactor.isSettled, "held, not pending: readiness does not wait for it")
            let summary = await interactor.summary()
            #expect(
                summary.hasPrefix("3 targets, 2 applied, 1 failing (power)"),
                "applied counts only those applied: \(summary)"
            )
            // Failing, not rendered: no warning says that it renders as empty.
            let warnings = await interactor.status().warnings.filter { $0.file.hasSuffix("power.json") }
            #expect(warnings.isEmpty, "\(warnings)")
            await interactor.receivedAndApplied([Self.change("power.sleep.idle", 30, cursor: "power:2")])
            #expect(try Files.read(file) == "idle=30\n")
        }
    }

    @Test("the changes of one record (a load) are applied together, not key by key as they arrive")
    func recordAppliedWhole() async throws {
        try await TemporaryDirectory.with { directory in
            let fixture = try Fixture(directory)
            try fixture.folder.write(
                "pair",
                ["reads": ["network.proxy"], "destination": "/etc/pair.conf"],
                template: "{{network.proxy.host}}:{{network.proxy.port}}\n"
            )
            let file = directory + "/root/etc/pair.conf"
            let interactor = try await fixture.interactor()
            await interactor.receivedAndApplied([
                Self.current("network.proxy.host", "a.example", cursor: "network:4"),
                Self.current("network.proxy.port", 3128, cursor: "network:4"),
                Self.ready("network:4"),
            ])
            #expect(try Files.read(file) == "a.example:3128\n")
            await interactor.receivedAndApplied([Self.change("network.proxy.host", "b.example", cursor: "network:5.0")])
            #expect(try Files.read(file) == "a.example:3128\n", "half a load is never written")
            #expect(!(await interactor.isSettled))
            await interactor.receivedAndApplied([Self.change("network.proxy.port", 8080, cursor: "network:5")])
            #expect(try Files.read(file) == "b.example:8080\n")
            #expect(await interactor.isSettled)
        }
    }

    @Test("while a check still runs, the summary (systemd's status) says the targets are still being applied")
    func summaryWhileApplying() async throws {
        try await TemporaryDirectory.with { directory in
            let fixture = try Fixture(directory)
            let gate = directory + "/go"
            try fixture.folder.write(
                "slow",
                [
                    "reads": ["network.proxy.host"], "destination": "/etc/slow.conf",
                    "check": ["sh", "-c", .string("while [ ! -e \(gate) ]; do sleep 0.02; done")],
                ],
                template: "x\n"
            )
            let interactor = try await fixture.interactor()
            async let applied: Void = interactor.receivedAndApplied([
                Self.current("network.proxy.host", "a.example", cursor: "network:4"), Self.ready("network:4"),
            ])
            while await !interactor.summary().contains("still applying") {
                try await Task.sleep(for: .milliseconds(10))
            }
            #expect(await !interactor.isSettled)
            try Files.write("", to: gate)
            await applied
            let summary = await interactor.summary()
            #expect(summary.hasPrefix("3 targets applied"), "\(summary)")
        }
    }

    @Test("a failed apply is over once the values render what the file holds: the result is unchanged again")
    func failureClearsWhenUnchanged() async throws {
        try await TemporaryDirectory.with { directory in
            let fixture = try Fixture(directory)
            try fixture.folder.write(
                "checked",
                [
                    "reads": ["network.proxy.host"], "destination": "/etc/checked.conf",
                    "check": ["/bin/grep", "-qv", "bad"],
                ],
                template: "host={{network.proxy.host}}\n"
            )
            let interactor = try await fixture.interactor()
            func result() async -> String? {
                await interactor.status().targets.first { $0.target == "checked" }?.last?.result
            }
            let file = fixture.directory + "/root/etc/checked.conf"
            await interactor.receivedAndApplied([
                Self.current("network.dns.servers", [], cursor: "network:1"),
                Self.current("network.proxy.host", "good", cursor: "network:1"), Self.ready("network:1"),
            ])
            #expect(await result() == "written")
            await interactor.receivedAndApplied([Self.change("network.proxy.host", "bad", cursor: "network:2")])
            #expect(await result() == "check-failed")
            #expect(try Files.read(file) == "host=good\n", "the check kept the previous file")
            #expect(await interactor.summary().contains("1 failing (checked)"))
            await interactor.receivedAndApplied([Self.change("network.proxy.host", "good", cursor: "network:3")])
            #expect(await result() == "unchanged")
            #expect(!(await interactor.summary().contains("failing")))
        }
    }

    @Test("status keeps the record of the last write while later applies find the file unchanged (as README says)")
    func unchangedKeepsTheWrite() async throws {
        try await TemporaryDirectory.with { directory in
            let fixture = try Fixture(directory)
            let interactor = try await fixture.interactor()
            await interactor.receivedAndApplied([
                Self.current("network.dns.servers", [], cursor: "network:1"),
                Self.current("network.proxy.host", "a.example", cursor: "network:1"), Self.ready("network:1"),
            ])
            // The same value set again: rendered from revision 2, the same bytes, nothing written.
            await interactor.receivedAndApplied([Self.change("network.proxy.host", "a.example", cursor: "network:2")])
            let proxy = await interactor.status().targets.first { $0.target == "proxy" }?.last
            #expect(proxy?.result == "written" && proxy?.revisions == ["network": 1], "\(String(describing: proxy))")
        }
    }

    @Test("a restart resumes from the saved cursor and values, and renders every target once")
    func resumesFromState() async throws {
        try await TemporaryDirectory.with { directory in
            let fixture = try Fixture(directory)
            let first = try await fixture.interactor()
            await first.receivedAndApplied([
                Self.current("network.dns.servers", ["1.1.1.1"], cursor: "network:2"),
                Self.current("network.proxy.host", "a", cursor: "network:2"),
                Self.ready("network:2"),
            ])
            // The file is lost while the applier is down; the changes after its cursor come on resume.
            try Files.write("edited by hand\n", to: fixture.dns)
            let second = try await fixture.interactor()
            #expect(await second.cursor == "network:2")
            await second.receivedAndApplied([
                Self.change("network.proxy.host", "b", cursor: "network:3"), Self.ready("network:3"),
            ])
            // Restored; its revision is that of the last change to what it reads, not the module's.
            #expect(try Files.read(fixture.dns) == "DNS=1.1.1.1 r2\n")
            #expect(try Files.read(fixture.proxy) == "host=b\n")
            #expect(await second.cursor == "network:3")
        }
    }

    @Test("a corrupt state file is moved aside and the applier starts afresh, rendering every target")
    func corruptState() async throws {
        try await TemporaryDirectory.with { directory in
            let fixture = try Fixture(directory)
            try Files.write("{garbage", to: directory + "/state.json")
            let interactor = try await fixture.interactor()
            #expect(await interactor.cursor == nil)
            #expect(try Files.read(directory + "/state.json.corrupt") == "{garbage")
            await interactor.receivedAndApplied([
                Self.current("network.dns.servers", ["1.1.1.1"], cursor: "network:2"),
                Self.current("network.proxy.host", "a", cursor: "network:2"), Self.ready("network:2"),
            ])
            #expect(try Files.read(fixture.dns) == "DNS=1.1.1.1 r2\n")
            #expect(await interactor.cursor == "network:2")
        }
    }

    @Test("a resync replaces every value with the current ones that follow it")
    func resync() async throws {
        try await TemporaryDirectory.with { directory in
            let fixture = try Fixture(directory)
            let interactor = try await fixture.interactor()
            await interactor.receivedAndApplied([
                Self.current("network.dns.servers", ["1.1.1.1"], cursor: "network:1"),
                Self.current("network.proxy.host", "a", cursor: "network:1"),
                Self.ready("network:1"),
            ])
            await interactor.receivedAndApplied([
                WatchEventViewModel(event: .resync, cursor: "network:9"),
                Self.current("network.dns.servers", ["8.8.8.8"], cursor: "network:9"),
                Self.current("network.proxy.host", "a", cursor: "network:9"),
                Self.ready("network:9"),
            ])
            #expect(try Files.read(fixture.dns) == "DNS=8.8.8.8 r9\n")
            // A resync after which what the target reads is unchanged: its revision.network stays, nothing is written.
            await interactor.receivedAndApplied([
                WatchEventViewModel(event: .resync, cursor: "network:12"),
                Self.current("network.dns.servers", ["8.8.8.8"], cursor: "network:12"),
                Self.current("network.proxy.host", "b", cursor: "network:12"),
                Self.ready("network:12"),
            ])
            #expect(try Files.read(fixture.proxy) == "host=b\n")
            #expect(try Files.read(fixture.dns) == "DNS=8.8.8.8 r9\n")
            // Restarted, the applier renders every target from what it kept: the same bytes, nothing rewritten.
            let restarted = try await fixture.interactor()
            await restarted.receivedAndApplied([Self.ready("network:12")])
            #expect(try Files.read(fixture.dns) == "DNS=8.8.8.8 r9\n", "revision.network moved for nothing")
        }
    }

    @Test("after the daemon's state was reset, a revision of its former history is not kept: files name the new ones")
    func daemonStateReset() async throws {
        try await TemporaryDirectory.with { directory in
            let fixture = try Fixture(directory)
            let interactor = try await fixture.interactor()
            await interactor.receivedAndApplied([
                Self.current("network.dns.servers", ["1.1.1.1"], cursor: "network:5"),
                Self.current("network.dns.cache", true, cursor: "network:5"),
                Self.ready("network:5"),
            ])
            #expect(try Files.read(fixture.dns) == "DNS=1.1.1.1 r5\n")
            // The daemon starts over from revision 0 with the same values, then changes one of them.
            await interactor.receivedAndApplied([
                WatchEventViewModel(event: .resync, cursor: "network:0"),
                Self.current("network.dns.servers", ["1.1.1.1"], cursor: "network:0"),
                Self.current("network.dns.cache", true, cursor: "network:0"),
                Self.ready("network:0"),
                Self.change("network.dns.servers", ["8.8.8.8"], cursor: "network:1"),
            ])
            #expect(try Files.read(fixture.dns) == "DNS=8.8.8.8 r1\n", "revision 5 was of the former history")
            let last = await interactor.status().targets.first { $0.target == "dns" }?.last
            #expect(last?.revisions == ["network": 1])
        }
    }

    @Test(
        "with its state file lost or corrupt, a file that holds the current values keeps the revision it shows and is not rewritten",
        arguments: [nil, "{garbage"]
    )
    func stateLost(replacement: String?) async throws {
        try await TemporaryDirectory.with { directory in
            let fixture = try Fixture(directory)
            let first = try await fixture.interactor()
            await first.receivedAndApplied([
                Self.current("network.dns.servers", ["1.1.1.1"], cursor: "network:1"),
                Self.current("network.proxy.host", "a", cursor: "network:1"),
                Self.ready("network:1"),
                Self.change("network.proxy.host", "b", cursor: "network:3"),
            ])
            #expect(try Files.read(fixture.dns) == "DNS=1.1.1.1 r1\n")
            let written = try FileManager.default.attributesOfItem(atPath: fixture.dns)[.modificationDate] as? Date
            let state = directory + "/state.json"
            if let replacement {
                try Files.write(replacement, to: state)
            } else {
                try FileManager.default.removeItem(atPath: state)
            }
            // The daemon tells only the module's revision (3) with the current values.
            let resynced = try await fixture.interactor()
            await resynced.receivedAndApplied([
                Self.current("network.dns.servers", ["1.1.1.1"], cursor: "network:3"),
                Self.current("network.proxy.host", "b", cursor: "network:3"),
                Self.ready("network:3"),
            ])
            #expect(try Files.read(fixture.dns) == "DNS=1.1.1.1 r1\n", "rewritten with the module's revision")
            let dns = await resynced.status().targets.first { $0.target == "dns" }?.last
            #expect(dns?.result == "unchanged" && dns?.revisions == ["network": 1], "\(String(describing: dns))")
            #expect(
                try FileManager.default.attributesOfItem(atPath: fixture.dns)[.modificationDate] as? Date == written
            )
            // What it settled on is kept: the next start renders the same bytes.
            let restarted = try await fixture.interactor()
            await restarted.receivedAndApplied([Self.ready("network:3")])
            #expect(try Files.read(fixture.dns) == "DNS=1.1.1.1 r1\n")
            // A later change of what the target reads is rendered with its own revision.
            await restarted.receivedAndApplied([Self.change("network.dns.servers", ["9.9.9.9"], cursor: "network:4")])
            #expect(try Files.read(fixture.dns) == "DNS=9.9.9.9 r4\n")
            // Lost again, and the value changed meanwhile: the file no longer holds it, and the guess is all there is.
            try FileManager.default.removeItem(atPath: state)
            let changed = try await fixture.interactor()
            await changed.receivedAndApplied([
                Self.current("network.dns.servers", ["8.8.8.8"], cursor: "network:7"),
                Self.current("network.proxy.host", "b", cursor: "network:7"),
                Self.ready("network:7"),
            ])
            #expect(try Files.read(fixture.dns) == "DNS=8.8.8.8 r7\n")
        }
    }

    @Test("a target added at a reload that names the file of a running target is refused; the file stays as it is")
    func reloadKeepsRunningDestination() async throws {
        try await TemporaryDirectory.with { directory in
            let fixture = try Fixture(directory)
            try fixture.folder.write(
                "zz",
                ["reads": ["network.proxy.host"], "destination": "/etc/zz.conf", "mode": "0600"],
                template: "zz {{network.proxy.host}}\n"
            )
            let file = directory + "/root/etc/zz.conf"
            let interactor = try await fixture.interactor()
            await interactor.receivedAndApplied([
                Self.current("network.dns.servers", [], cursor: "network:1"),
                Self.current("network.proxy.host", "a", cursor: "network:1"), Self.ready("network:1"),
            ])
            #expect(try Files.read(file) == "zz a\n")
            try fixture.folder.write(
                "aa",
                ["reads": ["network.proxy.host"], "destination": "/etc/./zz.conf"],
                template: "aa {{network.proxy.host}}\n"
            )
            await interactor.reload(from: ApplyTargetLoader(directory: fixture.folder.path, root: directory + "/root"))
            #expect(try Files.read(file) == "zz a\n", "the newcomer took over the file")
            var info = stat()
            #expect(stat(file, &info) == 0 && info.st_mode & 0o7777 == 0o600)
            let status = await interactor.status()
            #expect(!status.targets.contains { $0.target == "aa" })
            #expect(
                status.problems.contains {
                    $0.file.hasSuffix("/aa.json")
                        && $0.reason.hasPrefix("destination \(file) is also target zz's, which applies it already")
                },
                "\(status.problems)"
            )
            await interactor.receivedAndApplied([Self.change("network.proxy.host", "b", cursor: "network:2")])
            #expect(try Files.read(file) == "zz b\n", "the running target still applies its file")
        }
    }

    @Test("a SIGHUP that cannot read the targets directory logs why and keeps the targets loaded")
    func reloadWithoutDirectory() async throws {
        try await TemporaryDirectory.with { directory in
            let fixture = try Fixture(directory)
            let log = LogRecorder()
            let interactor = ApplyInteractor(
                applier: FileApplier(commands: CommandRunner(), scratchDirectory: directory),
                store: ApplyStateStore(path: directory + "/state.json"),
                logger: log.logger
            )
            let loader = ApplyTargetLoader(directory: fixture.folder.path, root: directory + "/root")
            await interactor.reload(from: loader)
            await interactor.receivedAndApplied([
                Self.current("network.dns.servers", [], cursor: "network:1"),
                Self.current("network.proxy.host", "a", cursor: "network:1"), Self.ready("network:1"),
            ])
            try FileManager.default.moveItem(atPath: fixture.folder.path, toPath: directory + "/moved")
            await interactor.reload(from: loader)
            #expect(
                log.messages(at: .error).contains(
                    "targets not re-read, keeping the 2 loaded until now: cannot read the targets directory"
                        + " \(fixture.folder.path) (--targets-dir): No such file or directory"
                ),
                "\(log.messages(at: .error))"
            )
            let status = await interactor.status()
            #expect(status.targets.map(\.target) == ["dns", "proxy"])
            #expect(status.problems.map(\.file) == [directory + "/apply.d/broken.json"])
            await interactor.receivedAndApplied([Self.change("network.proxy.host", "b", cursor: "network:2")])
            #expect(try Files.read(fixture.proxy) == "host=b\n")
        }
    }

    @Test("a dry run before the values are known, or while the daemon is away, is refused; else it writes nothing")
    func dryRun() async throws {
        try await TemporaryDirectory.with { directory in
            let fixture = try Fixture(directory)
            let interactor = try await fixture.interactor()
            await #expect(throws: ApplyError.self) { try await interactor.dryRun() }
            await interactor.receivedAndApplied([
                Self.current("network.dns.servers", [], cursor: "network:1"),
                Self.current("network.proxy.host", "a", cursor: "network:1"),
                Self.ready("network:1"),
            ])
            try Files.write("DNS=old\n", to: fixture.dns)
            let dry = try await interactor.dryRun()
            #expect(dry.targets.map(\.result) == ["would-write", "unchanged"])
            #expect(dry.targets[0].diff?.contains("-DNS=old\n+DNS= r1\n") == true, "\(dry.targets[0])")
            #expect(try Files.read(fixture.dns) == "DNS=old\n")
            // The daemon lost: the values last received may be stale, so it is refused, as before they came.
            await interactor.connection(false)
            let lost = await #expect(throws: ApplyError.self) { try await interactor.dryRun() }
            #expect(
                lost?.description.hasPrefix("it is not connected to the settings daemon") == true,
                "\(String(describing: lost))"
            )
            // Connected again, but not yet at the `ready` of the new stream: the changes missed may be on their way.
            await interactor.connection(true)
            let catchingUp = await #expect(throws: ApplyError.self) { try await interactor.dryRun() }
            #expect(catchingUp?.description.contains("current values yet") == true, "\(String(describing: catchingUp))")
            await interactor.receivedAndApplied([Self.ready("network:1")])
            #expect(try await interactor.dryRun().targets.count == 2)
        }
    }
}
