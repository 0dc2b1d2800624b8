import Logging
import Synchronization
import Testing
import ViperSettings
import ViperTestSupport

@testable import ViperSync

/// The etcd source against gateways whose watches keep ending before they work: one that ends every watch stream
/// right after `created` (a proxy that does not pass streamed answers on), one that answers every watch with a
/// compaction, one that refuses watches. The source backs off on the injected clock, logs the run of failures once
/// and `status` says failing until a watch works; it used to re-list and watch again in a tight loop (some 1,500
/// requests a second) with `status` saying `ok`.
@Suite("etcd source against watches that keep ending")
struct EtcdWatchLoopTests {
    /// The backoff of the tests: 1, 2, 4, 8, 8 s… with no jitter, so that each delay is known.
    static let backoff = Backoff(initial: .seconds(1), maximum: .seconds(8), jitter: 0)

    @Test(
        "watches that end before they work back off, are logged once and fail the status until a watch works",
        arguments: [
            (FakeEtcdGateway.Watch.endAfterCreated, 2, "watch failed: watch: the stream ended", Duration.seconds(1)),
            (.compacted, 2, "the watch was cancelled as compacted", .seconds(1)),
            (.refused, 1, "watch failed: watch: HTTP 404: Not Found", .seconds(2)),
        ]
    )
    func backsOffUntilAWatchWorks(
        watch: FakeEtcdGateway.Watch,
        watchesAtOnce: Int,
        reason: String,
        delayAfterRecovery: Duration
    ) async throws {
        let gateway = try FakeEtcdGateway(watch: watch)
        let clock = ManualClock()
        let recorder = LogRecorder()
        let configuration = try EtcdSourceConfiguration.parse(
            url: "etcd://127.0.0.1:\(gateway.port)/viper",
            backoff: Self.backoff,
            probeInterval: .seconds(3600)
        )
        let source = EtcdRemoteSource(configuration: configuration, clock: clock, logger: recorder.logger)
        let snapshots = EtcdSnapshotLog()
        let status = SyncStatusRecorder(source: source.endpointDescription)
        let name = "etcd 127.0.0.1:\(gateway.port)"
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await source.run(applying: snapshots.apply, status: status) }
            defer { group.cancelAll() }

            // A watch that was up re-lists at once the first time; then the source waits.
            var watches = watchesAtOnce
            var delay = try await Self.backoff(clock, gateway, watches: watches)
            #expect(delay == .seconds(1))
            var current = status.snapshot
            #expect(current.state == .failing)
            #expect(current.lastError?.hasPrefix("\(name): \(reason)") == true, "\(current.lastError ?? "none")")
            #expect(current.nextAttempt != nil)
            #expect(current.lastSuccess != nil, "the range reads succeeded")

            // Each watch that ends again doubles the delay, up to the maximum; the status stays failing.
            for expected in [2, 4, 8, 8] {
                clock.advance(by: delay)
                watches += 1
                delay = try await Self.backoff(clock, gateway, watches: watches)
                #expect(delay == .seconds(expected))
                current = status.snapshot
                #expect(current.state == .failing)
                #expect(current.lastError?.contains("\(name): \(reason)") == true, "\(current.lastError ?? "none")")
                #expect(current.lastError?.contains("\(watches) watches in a row ended") == true)
            }
            #expect(gateway.ranges == watches, "one range read before each watch")
            // The run of failures is logged once (its first watch, then that they keep ending), not per attempt.
            let told = recorder.entries.filter { $0.level >= .notice }.map(\.message)
            #expect(told.count == 2, "\(told)")
            #expect(told.last?.contains("watches keep ending before they deliver a change") == true, "\(told)")

            // A watch that delivers a change ends the failure, in the status and the log.
            gateway.watch = .deliverAndHold
            clock.advance(by: delay)
            _ = try await snapshots.wait("the change the watch delivered") {
                $0.modules["m"]?.recommended["s.k"] == 1
            }
            try #require(await Eventually.wait { status.snapshot.state == .ok })
            #expect(status.snapshot.lastError == nil)
            #expect(recorder.count { $0 == "\(name): the watch works again" } == 1)

            // It also resets the backoff: the run that follows starts over.
            watches = gateway.watches
            gateway.watch = watch
            delay = try await Self.backoff(clock, gateway, watches: watches + 1)
            #expect(delay == delayAfterRecovery)
        }
        withExtendedLifetime(gateway) {}
    }

    @Test("a quiet watch whose member answers a probe works: it ends the failure, and the next run starts over")
    func answeredProbeEndsTheFailure() async throws {
        let gateway = try FakeEtcdGateway(watch: .endAfterCreated)
        let clock = ManualClock()
        let recorder = LogRecorder()
        let probeInterval = Duration.seconds(100)
        let configuration = try EtcdSourceConfiguration.parse(
            url: "etcd://127.0.0.1:\(gateway.port)/viper",
            backoff: Self.backoff,
            probeInterval: probeInterval
        )
        let source = EtcdRemoteSource(configuration: configuration, clock: clock, logger: recorder.logger)
        let status = SyncStatusRecorder(source: source.endpointDescription)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await source.run(applying: { _ in .stored }, status: status) }
            defer { group.cancelAll() }
            let delay = try await Self.backoff(clock, gateway, watches: 2)

            // The range read before a watch that stays up does not end the failure: only the watch can.
            gateway.watch = .hold
            clock.advance(by: delay)
            try #require(await Eventually.wait { gateway.watches == 3 && clock.pendingSleeps == [probeInterval] })
            #expect(gateway.ranges == 3)
            #expect(status.snapshot.state == .failing)
            #expect(status.snapshot.lastError?.contains("2 watches in a row ended") == true)

            clock.advance(by: probeInterval)
            try #require(await Eventually.wait { status.snapshot.state == .ok })
            #expect(gateway.probes == 1)
            #expect(recorder.count { $0.hasSuffix(": the watch works again") } == 1)

            // The watch worked: when it ends, the source re-lists at once, and backs off from the start after that.
            gateway.watch = .endAfterCreated
            #expect(try await Self.backoff(clock, gateway, watches: 4) == .seconds(1))
        }
        withExtendedLifetime(gateway) {}
    }

    @Test(
        "listed values that could not be stored are failing, not watched, and listed and applied again after the backoff"
    )
    func notStoredIsListedAgain() async throws {
        let gateway = try FakeEtcdGateway(watch: .hold)
        let clock = ManualClock()
        let configuration = try EtcdSourceConfiguration.parse(
            url: "etcd://127.0.0.1:\(gateway.port)/viper",
            backoff: Self.backoff,
            probeInterval: .seconds(3600)
        )
        let source = EtcdRemoteSource(configuration: configuration, clock: clock, logger: LogRecorder().logger)
        let status = SyncStatusRecorder(source: source.endpointDescription)
        let outcome = OutcomeBox(.notStored(reason: "module m: No space left on device"))
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await source.run(applying: { _ in outcome.value.withLock { $0 } }, status: status) }
            defer { group.cancelAll() }
            // Not stored: no watch; the backoff, with the reason in the status.
            try #require(await Eventually.wait { clock.pendingSleeps.contains(.seconds(1)) })
            #expect(gateway.ranges == 1)
            #expect(gateway.watches == 0)
            #expect(status.snapshot.state == .failing)
            let error = status.snapshot.lastError ?? ""
            #expect(error.contains("could not be stored: module m: No space left on device"), "\(error)")

            // Stored at the next attempt: listed again, then watched, and ok.
            outcome.value.withLock { $0 = .stored }
            clock.advance(by: .seconds(1))
            try #require(await Eventually.wait { gateway.watches == 1 && status.snapshot.state == .ok })
            #expect(gateway.ranges == 2)
        }
        withExtendedLifetime(gateway) {}
    }

    @Test("a burst of changes is read while a snapshot is applied, and applied in a few snapshots, not one per change")
    func burstIsAppliedInFewSnapshots() async throws {
        let count = 200
        let gateway = try FakeEtcdGateway(watch: .burstAndHold(count))
        let configuration = try EtcdSourceConfiguration.parse(
            url: "etcd://127.0.0.1:\(gateway.port)/viper",
            backoff: Self.backoff,
            probeInterval: .seconds(3600)
        )
        let source = EtcdRemoteSource(configuration: configuration, clock: ManualClock(), logger: LogRecorder().logger)
        let status = SyncStatusRecorder(source: source.endpointDescription)
        let applied = Mutex<[RemoteSnapshot]>([])
        // The first change's snapshot is held until the test lets it go: meanwhile the rest of the burst arrives.
        let (release, released) = AsyncStream<Void>.makeStream()
        let apply: @Sendable (RemoteSnapshot) async -> RemoteApplyOutcome = { snapshot in
            let first = applied.withLock { applied in
                applied.append(snapshot)
                return applied.count == 2  // the range read's, then the first change's
            }
            if first { for await _ in release { break } }
            return .stored
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await source.run(applying: apply, status: status) }
            defer { group.cancelAll() }
            try #require(await Eventually.wait { applied.withLock { $0.count } == 2 })
            released.yield()
            let last = "\(7 + count)"
            try #require(await Eventually.wait { applied.withLock { $0.last?.revision } == last })
            let snapshots = applied.withLock { $0 }
            #expect(snapshots.last?.modules["m"]?.recommended.count == count, "every change is in the last snapshot")
            // One per change (and the range read's) before: fewer is the burst read while a snapshot was applied.
            #expect(snapshots.count < count, "\(snapshots.count) snapshots applied for \(count) changes")
            try #require(await Eventually.wait { status.snapshot.revision == last && status.snapshot.state == .ok })
        }
        withExtendedLifetime(gateway) {}
    }

    /// Waits until the source sleeps a backoff delay, and returns it; fails when the source watched more than
    /// `watches` times meanwhile (it did not back off: the count explodes).
    static func backoff(_ clock: ManualClock, _ gateway: FakeEtcdGateway, watches: Int) async throws -> Duration {
        // The only sleep shorter than the probe interval (3600 s) is the backoff's.
        let settled = await Eventually.wait {
            clock.pendingSleeps.contains { $0 < .seconds(60) } || gateway.watches > watches + 20
        }
        try #require(settled, "no backoff; pending sleeps: \(clock.pendingSleeps), watches: \(gateway.watches)")
        try #require(gateway.watches == watches, "watches before the source backed off")
        return try #require(clock.pendingSleeps.first { $0 < .seconds(60) })
    }
}

/// What applying gives, changed by the test while the source runs.
private final class OutcomeBox: Sendable {
    let value: Mutex<RemoteApplyOutcome>
    init(_ outcome: RemoteApplyOutcome) { self.value = Mutex(outcome) }
}
