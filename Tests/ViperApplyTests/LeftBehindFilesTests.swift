import Foundation
import Logging
import SettingsAPI
import Testing
import ViperTestSupport

@testable import ViperApply

@Suite("Files the applier wrote that no target writes any more: kept, logged and shown until removed")
struct LeftBehindFilesTests {
    /// Two targets under a root in a temporary directory, an applier on them, and what it logs.
    struct Fixture {
        let directory: String
        let folder: TargetFolder
        let recorder = LogRecorder()
        var root: String { self.directory + "/root" }
        var dns: String { self.root + "/etc/dns.conf" }
        var proxy: String { self.root + "/etc/proxy.conf" }
        var state: String { self.directory + "/state.json" }

        init(_ directory: String) throws {
            self.directory = directory
            self.folder = try TargetFolder(directory)
            try self.writeDNS(destination: "/etc/dns.conf")
            try self.folder.write(
                "proxy",
                ["reads": ["network.proxy.host"], "destination": "/etc/proxy.conf"],
                template: "host={{network.proxy.host}}\n"
            )
        }

        func writeDNS(destination: String) throws {
            try self.folder.write(
                "dns",
                ["reads": ["network.dns"], "destination": .string(destination)],
                template: "DNS={{#network.dns.servers}}{{.}}{{^last()}} {{/last()}}{{/network.dns.servers}}\n"
            )
        }

        /// An applier as at a start: the targets loaded, then the daemon's current values.
        func start() async throws -> ApplyInteractor {
            let interactor = ApplyInteractor(
                applier: FileApplier(commands: CommandRunner(), scratchDirectory: self.directory),
                store: ApplyStateStore(path: self.state),
                clock: .init { 1_800_000_000 },
                logger: self.recorder.logger
            )
            try await interactor.replace(targets: self.folder.load(root: self.root))
            await interactor.receivedAndApplied([
                ApplyInteractorTests.current("network.dns.servers", ["9.9.9.9"], cursor: "network:4"),
                ApplyInteractorTests.current("network.proxy.host", "a.example", cursor: "network:4"),
                ApplyInteractorTests.ready("network:4"),
            ])
            return interactor
        }

        /// SIGHUP: the targets read again.
        func reload(_ interactor: ApplyInteractor) async throws {
            try await interactor.replace(
                targets: self.folder.load(root: self.root, running: await interactor.targets)
            )
        }

        /// The warnings logged that say `path` is left behind.
        func logged(_ path: String) -> [String] {
            self.recorder.messages(at: .warning).filter { $0.contains(": \(path), which the applier wrote") }
        }

        /// The status's warnings about files written for targets that no longer write them.
        func leftBehind(_ interactor: ApplyInteractor) async -> [TargetProblemViewModel] {
            await interactor.status().warnings.filter { $0.writtenFor != nil }
        }

        /// The files the saved state records as written.
        func recorded() throws -> Set<String> {
            Set(try ApplyStateStore(path: self.state).load().written.keys)
        }
    }

    @Test("a removed target's file stays, is logged at each load and shown in the status until it is removed")
    func removedTarget() async throws {
        try await TemporaryDirectory.with { directory in
            let fixture = try Fixture(directory)
            let interactor = try await fixture.start()
            #expect(try Files.read(fixture.proxy) == "host=a.example\n")
            #expect(await fixture.leftBehind(interactor).isEmpty)
            #expect(fixture.logged(fixture.proxy).isEmpty)
            #expect(try fixture.recorded() == [fixture.dns, fixture.proxy])

            try FileManager.default.removeItem(atPath: fixture.folder.path + "/proxy.json")
            try await fixture.reload(interactor)
            #expect(try Files.read(fixture.proxy) == "host=a.example\n", "not removed: the administrator may want it")
            let logged = fixture.logged(fixture.proxy)
            #expect(logged.count == 1, "\(logged)")
            #expect(
                logged.first
                    == "target proxy was removed (or renamed): \(fixture.proxy), which the applier wrote for it, stays"
                    + " as it is and is no longer updated; remove it if its settings should no longer apply"
            )
            let warnings = await fixture.leftBehind(interactor)
            #expect(warnings.map(\.file) == [fixture.proxy])
            #expect(warnings.first?.writtenFor == "proxy")
            #expect(warnings.first?.reason.contains("target proxy, which was removed") == true)
            #expect(try await interactor.dryRun().warnings.contains { $0.file == fixture.proxy })

            // Once per load: another reload logs it once more, a change of values does not.
            await interactor.receivedAndApplied([
                ApplyInteractorTests.change("network.dns.servers", ["1.1.1.1"], cursor: "network:5")
            ])
            #expect(fixture.logged(fixture.proxy).count == 1)
            try await fixture.reload(interactor)
            #expect(fixture.logged(fixture.proxy).count == 2)

            // And after a restart: the state remembers which files the applier wrote.
            let restarted = try await fixture.start()
            #expect(fixture.logged(fixture.proxy).count == 3)
            #expect(await fixture.leftBehind(restarted).map(\.file) == [fixture.proxy])

            // Removed by the administrator: no longer shown, and forgotten at the next load.
            try FileManager.default.removeItem(atPath: fixture.proxy)
            #expect(await fixture.leftBehind(restarted).isEmpty)
            try await fixture.reload(restarted)
            #expect(fixture.logged(fixture.proxy).count == 3)
            #expect(try fixture.recorded() == [fixture.dns])
        }
    }

    @Test("a destination changed leaves the old file reported until a target writes it again")
    func destinationChanged() async throws {
        try await TemporaryDirectory.with { directory in
            let fixture = try Fixture(directory)
            let interactor = try await fixture.start()
            let moved = fixture.root + "/etc/dns2.conf"

            try fixture.writeDNS(destination: "/etc/dns2.conf")
            try await fixture.reload(interactor)
            #expect(try Files.read(moved) == "DNS=9.9.9.9\n")
            #expect(try Files.read(fixture.dns) == "DNS=9.9.9.9\n", "left as it is")
            let warnings = await fixture.leftBehind(interactor)
            #expect(warnings.map(\.file) == [fixture.dns])
            #expect(warnings.first?.reason.contains("target dns, which now writes \(moved)") == true)
            #expect(
                fixture.logged(fixture.dns).first?.hasPrefix("target dns now writes \(moved): \(fixture.dns),") == true
            )

            // Not updated any more: a change reaches the new file only.
            await interactor.receivedAndApplied([
                ApplyInteractorTests.change("network.dns.servers", ["1.1.1.1"], cursor: "network:5")
            ])
            #expect(try Files.read(moved) == "DNS=1.1.1.1\n")
            #expect(try Files.read(fixture.dns) == "DNS=9.9.9.9\n")

            // Back to the old destination: that file is the target's again, and the other one is left behind.
            try fixture.writeDNS(destination: "/etc/dns.conf")
            try await fixture.reload(interactor)
            #expect(try Files.read(fixture.dns) == "DNS=1.1.1.1\n")
            #expect(await fixture.leftBehind(interactor).map(\.file) == [moved])
            #expect(fixture.logged(fixture.dns).count == 1, "not logged since it is written again")
            #expect(try fixture.recorded() == [fixture.dns, fixture.proxy, moved])
            try FileManager.default.removeItem(atPath: moved)
            try await fixture.reload(interactor)
            #expect(await fixture.leftBehind(interactor).isEmpty)
            #expect(try fixture.recorded() == [fixture.dns, fixture.proxy])
        }
    }

    @Test("another target taking over the destination claims the file: it is not reported")
    func takenOver() async throws {
        try await TemporaryDirectory.with { directory in
            let fixture = try Fixture(directory)
            let interactor = try await fixture.start()
            try FileManager.default.removeItem(atPath: fixture.folder.path + "/proxy.json")
            try fixture.folder.write(
                "web",
                ["reads": ["network.proxy.host"], "destination": "/etc//proxy.conf"],
                template: "proxy={{network.proxy.host}}\n"
            )
            try await fixture.reload(interactor)
            #expect(try Files.read(fixture.proxy) == "proxy=a.example\n")
            #expect(await fixture.leftBehind(interactor).isEmpty)
            #expect(fixture.logged(fixture.proxy).isEmpty)
        }
    }

    @Test("a refused target's file is reported as refused")
    func refusedTarget() async throws {
        try await TemporaryDirectory.with { directory in
            let fixture = try Fixture(directory)
            let interactor = try await fixture.start()
            try Files.write("{\"reads\": [", to: fixture.folder.path + "/proxy.json")
            try await fixture.reload(interactor)
            let warnings = await fixture.leftBehind(interactor)
            #expect(warnings.map(\.file) == [fixture.proxy])
            #expect(warnings.first?.reason.contains("target proxy, which is refused") == true)
        }
    }

    @Test("a state saved before the files written were recorded takes them from the targets' last outcomes")
    func olderState() async throws {
        try await TemporaryDirectory.with { directory in
            let fixture = try Fixture(directory)
            _ = try await fixture.start()
            // As an older applier saved it: without `written`.
            var saved = try JSONValue(parsing: Array(Files.read(fixture.state).utf8)).objectValue ?? [:]
            let removed = saved.removeValue(forKey: "written")
            #expect(removed != nil)
            try Files.write(JSONValue.object(saved).serialized(), to: fixture.state)
            let state = try ApplyStateStore(path: fixture.state).load()
            #expect(
                state.written == [
                    fixture.dns: WrittenFile(target: "dns", root: ""),
                    fixture.proxy: WrittenFile(target: "proxy", root: ""),
                ]
            )

            try FileManager.default.removeItem(atPath: fixture.folder.path + "/proxy.json")
            let restarted = try await fixture.start()
            #expect(await fixture.leftBehind(restarted).map(\.file) == [fixture.proxy])
            #expect(fixture.logged(fixture.proxy).count == 1)
        }
    }

    @Test("a file missing or under a symbolic link below the root is not reported")
    func presence() async throws {
        try await TemporaryDirectory.with { directory in
            let root = directory + "/root"
            try Files.write("x", to: root + "/etc/a.conf")
            #expect(ApplyInteractor.presence(of: root + "/etc/a.conf", root: root) == .present)
            #expect(ApplyInteractor.presence(of: root + "/etc/b.conf", root: root) == .gone)
            #expect(ApplyInteractor.presence(of: root + "/nowhere/b.conf", root: root) == .gone)
            try FileManager.default.createSymbolicLink(atPath: root + "/link", withDestinationPath: root + "/etc")
            #expect(ApplyInteractor.presence(of: root + "/link/a.conf", root: root) == .unknown)
        }
    }
}
