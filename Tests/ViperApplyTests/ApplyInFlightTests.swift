import Foundation
import Logging
import NIOPosix
import SettingsAPI
import Testing
import ViperTestSupport

@testable import ViperApply

/// What happens while an apply runs (a slow check), and what a dry run renders: a target removed meanwhile is not
/// written, the status's cursor is that of what was applied, and a dry run fails what the apply refuses.
@Suite("The applier while a check runs, and its dry run")
struct ApplyInFlightTests {
    typealias Events = ApplyInteractorTests

    /// A check that writes its process id to `marker`, then waits until `gate` exists.
    static func gatedCheck(marker: String, gate: String) -> JSONValue {
        ["sh", "-c", .string("echo $$ > \(marker); while [ ! -e \(gate) ]; do sleep 0.02; done")]
    }

    /// The target `slow`, writing `/etc/slow.conf` from `network.proxy.host`, whose check is ``gatedCheck(marker:gate:)``.
    static func writeSlowTarget(in fixture: ApplyInteractorTests.Fixture, marker: String, gate: String) throws {
        try fixture.folder.write(
            "slow",
            [
                "reads": ["network.proxy.host"], "destination": "/etc/slow.conf",
                "check": Self.gatedCheck(marker: marker, gate: gate),
            ],
            template: "host={{network.proxy.host}}\n"
        )
    }

    /// The target `zlate`, writing `/etc/zlate.conf` from `network.proxy.host`: after `slow` in file-name order, so
    /// applied once slow's check has ended.
    static func writeLateTarget(in fixture: ApplyInteractorTests.Fixture) throws {
        try fixture.folder.write(
            "zlate",
            ["reads": ["network.proxy.host"], "destination": "/etc/zlate.conf"],
            template: "host={{network.proxy.host}}\n"
        )
    }

    @Test("apply status names the target being applied, since when, and the targets waiting for it")
    func statusWhileApplying() async throws {
        try await TemporaryDirectory.with { directory in
            let fixture = try ApplyInteractorTests.Fixture(directory)
            let (marker, gate) = (directory + "/marker", directory + "/gate")
            try Self.writeSlowTarget(in: fixture, marker: marker, gate: gate)
            try Self.writeLateTarget(in: fixture)
            let interactor = try await fixture.interactor()
            #expect(await interactor.status().applying == nil)
            async let started: Void = interactor.receivedAndApplied([
                Events.current("network.proxy.host", "a.example", cursor: "network:4"), Events.ready("network:4"),
            ])
            #expect(await Eventually.wait { Files.exists(marker) }, "the check never started")
            let applying = try #require(await interactor.status().applying)
            #expect(applying.target == "slow")
            #expect(applying.waiting.contains("zlate"), "\(applying)")
            #expect(!applying.waiting.contains("slow"))
            #expect(applying.since == 1_800_000_000, "the fixture's clock, read when the target's turn came")
            try Files.write("", to: gate)
            await started
            #expect(await interactor.status().applying == nil, "nothing is being applied any more")
        }
    }

    @Test("a target removed while its check runs: the check is stopped and its file is never written")
    func removedWhileChecked() async throws {
        try await TemporaryDirectory.with { directory in
            let fixture = try ApplyInteractorTests.Fixture(directory)
            let (marker, gate) = (directory + "/marker", directory + "/gate")
            try Self.writeSlowTarget(in: fixture, marker: marker, gate: gate)
            try Self.writeLateTarget(in: fixture)
            let slow = directory + "/root/etc/slow.conf"
            let late = directory + "/root/etc/zlate.conf"
            let interactor = try await fixture.interactor()

            // A target after the one being checked, removed meanwhile, is not applied with what it was.
            async let started: Void = interactor.receivedAndApplied([
                Events.current("network.proxy.host", "a.example", cursor: "network:4"), Events.ready("network:4"),
            ])
            #expect(await Eventually.wait { Files.exists(marker) }, "the check never started")
            try FileManager.default.removeItem(atPath: fixture.folder.path + "/zlate.json")
            await interactor.replace(targets: try fixture.folder.load(root: directory + "/root"))
            try Files.write("", to: gate)
            await started
            #expect(try Files.read(slow) == "host=a.example\n", "slow is still loaded: it is written")
            #expect(!Files.exists(late), "zlate was removed before its turn came")

            // The target being checked removed: its check is stopped, and nothing is written, even once it would
            // pass.
            try FileManager.default.removeItem(atPath: gate)
            try FileManager.default.removeItem(atPath: marker)
            async let changed: Void = interactor.receivedAndApplied([
                Events.change("network.proxy.host", "b.example", cursor: "network:5")
            ])
            #expect(await Eventually.wait { Files.exists(marker) }, "the check never started")
            let check = try #require(Processes.pid(in: marker))
            try FileManager.default.removeItem(atPath: fixture.folder.path + "/slow.json")
            await interactor.replace(targets: try fixture.folder.load(root: directory + "/root"))
            // The check is stopped, not left to pass: the gate is still closed.
            #expect(await Eventually.wait { !Processes.isRunning(check) }, "the check outlived its target")
            try Files.write("", to: gate)
            await changed
            #expect(try Files.read(slow) == "host=a.example\n", "written after the target was removed")
            #expect(Files.list(directory + "/root/etc").filter { $0.contains("viper-apply") }.isEmpty)
            #expect(try Files.read(fixture.proxy) == "host=b.example\n", "the other targets go on")
            let status = await interactor.status()
            #expect(!status.targets.contains { $0.target == "slow" })
            #expect(status.cursor == "network:5")
            #expect(await interactor.isSettled)
        }
    }

    @Test("while a check still applies a change, the status's cursor is that of the change before it")
    func cursorOfWhatWasApplied() async throws {
        try await TemporaryDirectory.with { directory in
            let fixture = try ApplyInteractorTests.Fixture(directory)
            let (marker, gate) = (directory + "/marker", directory + "/gate")
            try Self.writeSlowTarget(in: fixture, marker: marker, gate: gate)
            let interactor = try await fixture.interactor()
            try Files.write("", to: gate)
            await interactor.receivedAndApplied([
                Events.current("network.proxy.host", "a.example", cursor: "network:1"), Events.ready("network:1"),
            ])
            #expect(await interactor.status().cursor == "network:1")
            try FileManager.default.removeItem(atPath: gate)
            try FileManager.default.removeItem(atPath: marker)
            async let changed: Void = interactor.receivedAndApplied([
                Events.change("network.proxy.host", "b.example", cursor: "network:2")
            ])
            #expect(await Eventually.wait { Files.exists(marker) }, "the check never started")
            // A change that arrives meanwhile is not applied yet either.
            await interactor.receivedAndApplied([Events.change("network.dns.servers", ["9.9.9.9"], cursor: "network:3")]
            )
            #expect(await interactor.status().cursor == "network:1", "network:2 is still being applied")
            try Files.write("", to: gate)
            await changed
            #expect(await Eventually.wait { await interactor.isSettled })
            #expect(await interactor.status().cursor == "network:3")
            #expect(try Files.read(fixture.dns) == "DNS=9.9.9.9 r3\n")
        }
    }

    @Test("a dry run fails a target reading a module the daemon does not serve, as the apply does, saying why")
    func dryRunModuleNotServed() async throws {
        try await TemporaryDirectory.with { directory in
            let fixture = try ApplyInteractorTests.Fixture(directory)
            try fixture.folder.write(
                "typo",
                ["reads": ["netwrk.dns"], "destination": "/etc/typo.conf"],
                template: "DNS={{netwrk.dns.servers}}\n"
            )
            let file = directory + "/root/etc/typo.conf"
            try Files.write("DNS=9.9.9.9\n", to: file)
            let interactor = try await fixture.interactor()
            await interactor.receivedAndApplied([
                Events.current("network.dns.servers", [], cursor: "network:4"),
                Events.current("network.proxy.host", "a.example", cursor: "network:4"),
                Events.ready("network:4"),
            ])
            let applied = await interactor.status().targets.first { $0.target == "typo" }?.last
            let dry = try await interactor.dryRun()
            let typo = try #require(dry.targets.first { $0.target == "typo" })
            #expect(typo.result == "failed", "\(typo)")
            #expect(typo.error == applied?.error && applied?.result == "failed", "\(typo)")
            #expect(typo.error?.hasPrefix("the settings daemon does not serve module netwrk") == true, "\(typo)")
            #expect(typo.diff?.isEmpty != false, "not rendered: no diff of a blanked file")
            #expect(try Files.read(file) == "DNS=9.9.9.9\n")
            #expect(dry.targets.filter { $0.target != "typo" }.allSatisfy { $0.result != "failed" })
        }
    }

    @Test("a dry run runs the targets' checks at the same time, not one after the other")
    func dryRunChecksAtOnce() async throws {
        try await TemporaryDirectory.with { directory in
            let folder = try TargetFolder(directory)
            // Each check waits for the other to have started: one after the other, the first would wait for ever
            // (until the runner's limit kills it, failing the check).
            for (name, other) in [("one", "two"), ("two", "one")] {
                try folder.write(
                    name,
                    [
                        "reads": ["network.proxy.host"], "destination": .string("/etc/\(name).conf"),
                        "check": [
                            "sh", "-c",
                            .string(
                                "touch \(directory)/\(name).started;"
                                    + " while [ ! -e \(directory)/\(other).started ]; do sleep 0.02; done"
                            ),
                        ],
                    ],
                    template: "host={{network.proxy.host}}\n"
                )
            }
            try Files.write("", to: directory + "/one.started")  // lets the applies at start pass
            try Files.write("", to: directory + "/two.started")
            // Threads of their own: NIO's shared pool may have fewer than the checks, on a small machine.
            let pool = NIOThreadPool(numberOfThreads: 4)
            pool.start()
            defer { pool.shutdownGracefully { _ in } }
            let interactor = ApplyInteractor(
                applier: FileApplier(
                    commands: CommandRunner(timeoutSeconds: 120, threadPool: pool),
                    scratchDirectory: directory + "/scratch"
                ),
                store: ApplyStateStore(path: directory + "/state.json"),
                logger: Logger(label: "test")
            )
            await interactor.replace(targets: try folder.load(root: directory + "/root"))
            await interactor.receivedAndApplied([
                Events.current("network.proxy.host", "a.example", cursor: "network:1"), Events.ready("network:1"),
            ])
            try FileManager.default.removeItem(atPath: directory + "/one.started")
            try FileManager.default.removeItem(atPath: directory + "/two.started")
            let dry = try await interactor.dryRun()
            #expect(dry.targets.map(\.result) == ["unchanged", "unchanged"], "\(dry.targets)")
            #expect(dry.targets.allSatisfy { $0.check?.status == 0 }, "\(dry.targets)")
        }
    }
}
