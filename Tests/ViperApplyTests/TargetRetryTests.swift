import Foundation
import Logging
import SettingsAPI
import Testing
import ViperTestSupport

@testable import ViperApply

/// Failures that can heal by themselves (a write, a reload) are tried again, 1 s then doubling to 5 min, on the
/// injected clock; a check that refuses the bytes is not.
@Suite("Retrying targets that failed")
struct TargetRetryTests {
    typealias Events = ApplyInteractorTests

    /// Targets under `DIR/root`, an Interactor on them (the wall clock reads 1_800_000_000), and its retry service
    /// on a manual clock, running until `body` returns.
    static func withRetries(
        _ directory: String,
        folder: TargetFolder,
        reloads: Bool = false,
        log: LogRecorder = LogRecorder(),
        _ body: (ApplyInteractor, ManualClock) async throws -> Void
    ) async throws {
        let interactor = ApplyInteractor(
            applier: FileApplier(commands: CommandRunner(), scratchDirectory: directory, reloadsUnderRoot: reloads),
            store: ApplyStateStore(path: directory + "/state.json"),
            clock: .init { 1_800_000_000 },
            logger: log.logger
        )
        try await interactor.replace(targets: folder.load(root: directory + "/root"))
        let clock = ManualClock()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await TargetRetryService(interactor: interactor, clock: clock).run() }
            try await body(interactor, clock)
            group.cancelAll()
        }
    }

    static func status(_ interactor: ApplyInteractor, _ name: String) async -> TargetStatusViewModel? {
        await interactor.status().targets.first { $0.target == name }
    }

    @Test("the delays: 1 s, doubling, at most 5 min")
    func delays() {
        let delays = (1...12).map { ApplyInteractor.retryDelay(attempt: $0) }
        #expect(delays.prefix(5) == [.seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(16)])
        #expect(delays[8] == .seconds(256) && delays[9] == .seconds(300) && delays[11] == .seconds(300))
    }

    @Test("a write that failed is tried again after 1 s, then 2 s, and succeeds once the cause is gone")
    func failedWriteIsRetried() async throws {
        try await TemporaryDirectory.with { directory in
            let fixture = try ApplyInteractorTests.Fixture(directory)
            // A file where the destinations' directory should be: writing fails, for root too (unlike a read-only
            // directory), as on a full disk.
            try Files.write("not a directory", to: directory + "/root/etc")
            let log = LogRecorder()
            try await Self.withRetries(directory, folder: fixture.folder, log: log) { interactor, clock in
                await interactor.receivedAndApplied([
                    Events.current("network.dns.servers", ["9.9.9.9"], cursor: "network:4"),
                    Events.current("network.proxy.host", "a.example", cursor: "network:4"),
                    Events.ready("network:4"),
                ])
                let failed = await Self.status(interactor, "dns")
                #expect(failed?.last?.result == "failed", "\(String(describing: failed))")
                #expect(failed?.retry == TargetRetryViewModel(attempt: 1, at: 1_800_000_001))
                #expect(await interactor.summary().contains("2 to retry"))
                #expect(await Eventually.wait { clock.pendingSleeps == [.seconds(1), .seconds(1)] })

                clock.advance(by: .seconds(1))  // the cause is still there: failed again, the delay doubles
                #expect(await Eventually.wait { clock.pendingSleeps == [.seconds(2), .seconds(2)] })
                #expect(await Self.status(interactor, "dns")?.retry?.attempt == 2)
                #expect(log.count { $0 == "retrying target dns (retry 1)" } == 1, "\(log.entries.map(\.message))")

                unlink(directory + "/root/etc")
                clock.advance(by: .seconds(2))
                #expect(await Eventually.wait { (try? Files.read(fixture.proxy)) == "host=a.example\n" })
                #expect(await Eventually.wait { await Self.status(interactor, "dns")?.retry == nil })
                #expect((try? Files.read(fixture.dns)) == "DNS=9.9.9.9 r4\n")
                #expect(await Self.status(interactor, "dns")?.last?.result == "written")
                #expect(await Eventually.wait { await Self.status(interactor, "proxy")?.retry == nil })
                #expect(clock.pendingSleeps.isEmpty)
            }
        }
    }

    @Test("changes applied while a target fails leave its retry due when it was: the wait follows the time failing")
    func changesDoNotPushTheRetryAway() async throws {
        try await TemporaryDirectory.with { directory in
            let fixture = try ApplyInteractorTests.Fixture(directory)
            try Files.write("not a directory", to: directory + "/root/etc")
            try await Self.withRetries(directory, folder: fixture.folder) { interactor, clock in
                await interactor.receivedAndApplied([
                    Events.current("network.dns.servers", ["9.9.9.9"], cursor: "network:4"),
                    Events.current("network.proxy.host", "a.example", cursor: "network:4"),
                    Events.ready("network:4"),
                ])
                #expect(
                    await Self.status(interactor, "proxy")?.retry == TargetRetryViewModel(attempt: 1, at: 1_800_000_001)
                )
                // Eight changes fail too, before the retry is due: it stays retry 1, in 1 s.
                for (index, host) in ["b", "c", "d", "e", "f", "g", "h", "i"].enumerated() {
                    await interactor.receivedAndApplied([
                        Events.change("network.proxy.host", .string("\(host).example"), cursor: "network:\(5 + index)")
                    ])
                }
                let proxy = await Self.status(interactor, "proxy")
                #expect(proxy?.last?.result == "failed")
                #expect(
                    proxy?.retry == TargetRetryViewModel(attempt: 1, at: 1_800_000_001),
                    "\(String(describing: proxy))"
                )
                // The fault is gone: the retry due after 1 s writes the latest value.
                unlink(directory + "/root/etc")
                #expect(
                    await Eventually.wait { clock.pendingSleeps == [.seconds(1), .seconds(1)] },
                    "both retries wait"
                )
                clock.advance(by: .seconds(1))
                #expect(await Eventually.wait { (try? Files.read(fixture.proxy)) == "host=i.example\n" })
                #expect(await Eventually.wait { await Self.status(interactor, "proxy")?.retry == nil })
            }
        }
    }

    @Test("a failed reload is tried again until it works; a check that refuses the bytes is not tried again")
    func failedReloadIsRetriedButNotACheck() async throws {
        try await TemporaryDirectory.with { directory in
            let folder = try TargetFolder(directory)
            try folder.write(
                "svc",
                [
                    "reads": ["network.proxy.host"], "destination": "/etc/svc.conf",
                    "check": ["sh", "-c", "! grep -q reject \"$0\""],
                    "reload": ["test", "-e", .string(directory + "/up")],
                ],
                template: "host={{network.proxy.host}}\n"
            )
            let destination = directory + "/root/etc/svc.conf"
            try await Self.withRetries(directory, folder: folder, reloads: true) { interactor, clock in
                await interactor.receivedAndApplied([
                    Events.current("network.proxy.host", "a.example", cursor: "network:4"), Events.ready("network:4"),
                ])
                #expect(await Self.status(interactor, "svc")?.last?.result == "reload-failed")
                #expect(!Files.exists(destination), "the new file is removed: there was none before")
                #expect(await Eventually.wait { clock.pendingSleeps == [.seconds(1)] })

                try Files.write("", to: directory + "/up")
                clock.advance(by: .seconds(1))
                #expect(await Eventually.wait { (try? Files.read(destination)) == "host=a.example\n" })
                #expect(await Eventually.wait { await Self.status(interactor, "svc")?.retry == nil })
                #expect(await Self.status(interactor, "svc")?.last?.result == "written")

                await interactor.receivedAndApplied([Events.change("network.proxy.host", "reject", cursor: "network:5")]
                )
                let refused = await Self.status(interactor, "svc")
                #expect(
                    refused?.last?.result == "check-failed" && refused?.retry == nil,
                    "\(String(describing: refused))"
                )
                #expect(clock.pendingSleeps.isEmpty)
                #expect((try? Files.read(destination)) == "host=a.example\n")
            }
        }
    }
}
