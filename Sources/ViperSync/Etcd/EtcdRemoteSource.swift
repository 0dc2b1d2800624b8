public import AsyncHTTPClient
import Glibc
public import Logging
public import ViperPOSIX
public import ViperSettings

/// The etcd v3 remote source: a range read of the prefix, then a watch from the next revision, through etcd's JSON
/// gateway over plain HTTP.
///
/// Every range read and every watch event batch hands the complete snapshot (all keys under the prefix that fit
/// the layout, revision = the etcd revision) to `apply`. When the watch breaks, the source fails over to the next
/// endpoint (round-robin) and first re-lists, so nothing is missed; when the watched revision was compacted it
/// re-lists and resumes. Failed attempts are retried with ``Backoff``, and so are watches that keep ending before
/// they work (deliver a change, or see their member answer a probe): the first one re-lists at once, the next ones
/// after the backoff delay, and `status` says failing until a watch works, however well the range reads between
/// them go.
///
/// ```swift
/// let configuration = try EtcdSourceConfiguration.parse(url: "etcd://h1:2379,h2:2379/viper")
/// let source = EtcdRemoteSource(configuration: configuration, logger: logger)
/// await source.run(applying: { snapshot in await interactor.apply(snapshot) }, status: recorder)
/// ```
public final class EtcdRemoteSource: RemoteSource {
    /// How one watch ended. `worked`: the watch delivered a change, or its member answered a probe (the watch had
    /// been up for a probe interval), before it ended.
    enum WatchOutcome: Sendable {
        case syncRequested
        case compacted(Int64, worked: Bool)
        case failed(any Error, connected: Bool, worked: Bool)
        case cancelled
    }

    public let endpointDescription: String
    let configuration: EtcdSourceConfiguration
    let gateway: EtcdGatewayClient
    let clock: any Clock<Duration>
    let wallClock: WallClock
    let logger: Logger
    /// The pending ``syncNow()`` calls, each answered by the next range read, and the wake-up of the loop.
    private let trigger = SyncTrigger()
    /// The revision a watch starts from after a range read at the given revision: the next one (a test hook).
    let watchStart: @Sendable (Int64) -> Int64

    /// The client etcd sources use unless given another: one for the process (never shut down, as
    /// `HTTPClient.shared`), which does not retry a failed connection attempt itself. The shared client retries it
    /// until the request's deadline: an endpoint that refuses connections took the whole request timeout (10 s) to
    /// fail, named as a timeout, and held back the fail-over to the next endpoint as long.
    public static let defaultHTTPClient: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.retryConnectionEstablishment = false
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()

    /// Creates the source; it does nothing until ``run(applying:status:)``.
    ///
    /// - Parameters:
    ///   - configuration: Endpoints, prefix, backoff and timeouts.
    ///   - httpClient: The client to use; ``defaultHTTPClient`` in the daemon (it needs no shutdown).
    ///   - clock: The clock backoff delays wait on, `ContinuousClock()` in the daemon.
    ///   - wallClock: The wall clock, for the status times.
    ///   - maximumResponseSize: The largest range answer, and watch message, read (64 MiB).
    ///   - logger: Logs failures (warning), skipped keys (warning) and reconnects (notice).
    public convenience init(
        configuration: EtcdSourceConfiguration,
        httpClient: HTTPClient = EtcdRemoteSource.defaultHTTPClient,
        clock: any Clock<Duration> = ContinuousClock(),
        wallClock: WallClock = .system,
        maximumResponseSize: Int = 64 << 20,
        logger: Logger
    ) {
        self.init(
            configuration: configuration,
            httpClient: httpClient,
            clock: clock,
            wallClock: wallClock,
            maximumResponseSize: maximumResponseSize,
            logger: logger,
            watchStart: { $0 + 1 }
        )
    }

    /// Creates the source with a test hook that chooses the revision each watch starts from.
    init(
        configuration: EtcdSourceConfiguration,
        httpClient: HTTPClient = EtcdRemoteSource.defaultHTTPClient,
        clock: any Clock<Duration> = ContinuousClock(),
        wallClock: WallClock = .system,
        maximumResponseSize: Int = 64 << 20,
        logger: Logger,
        watchStart: @escaping @Sendable (Int64) -> Int64
    ) {
        self.endpointDescription = configuration.description
        self.configuration = configuration
        self.gateway = EtcdGatewayClient(httpClient: httpClient, maximumResponseSize: maximumResponseSize)
        self.clock = clock
        self.wallClock = wallClock
        self.logger = logger
        self.watchStart = watchStart
    }

    /// Runs until cancelled; see ``EtcdRemoteSource``. Run one loop at a time.
    public func run(
        applying apply: @escaping @Sendable (RemoteSnapshot) async -> RemoteApplyOutcome,
        status: SyncStatusRecorder
    )
        async
    {
        self.trigger.start()
        defer { self.trigger.finish() }

        let key = Array((self.configuration.prefix + "/").utf8)
        let rangeEnd = Self.prefixEnd(key)
        let endpoints = self.configuration.endpoints
        var endpointIndex = 0
        // Range reads in a row that failed.
        var failures = 0
        // Watches in a row that ended (compacted, failed) before they worked: a gateway that ends every watch at
        // once would otherwise have the source re-list and watch again in a tight loop, each range read a success.
        var watchEnds = 0
        // While watches keep ending, what `status` says: the range reads between them do not make it `ok`.
        var watchFailure: String?
        while !Task.isCancelled {
            let endpoint = endpoints[endpointIndex % endpoints.count]
            let name = EtcdGatewayClient.authority(endpoint)
            let waiters = self.trigger.beginAttempt()
            var keySpace = EtcdKeySpace(prefix: self.configuration.prefix)
            var listed = false
            // Listed, but the values could not be stored: tried again on the same endpoint.
            var stored = true
            var retryDelay = Duration.zero
            do {
                let result = try await self.gateway.range(
                    endpoint: endpoint,
                    key: key,
                    rangeEnd: rangeEnd,
                    timeout: self.configuration.requestTimeout
                )
                let skipped = keySpace.replaceAll(with: result.pairs, revision: result.revision)
                for entry in skipped {
                    // At debug: the snapshot carries it, and the Sync Interactor logs each rejection once, a bounded number at a time.
                    self.logger.debug("etcd key skipped", metadata: ["entry": "\(entry)"])
                }
                if case .notStored(let reason) = await apply(keySpace.snapshot) {
                    // Not taken as done: listed and applied again after the backoff (same endpoint), not watched.
                    failures += 1
                    let message =
                        "etcd \(name): the values at revision \(result.revision) could not be stored: \(reason)"
                    self.logger.warning("\(message)")
                    status.failed(message, at: self.wallClock.now())
                    retryDelay = self.scheduleRetry(afterFailures: failures, status: status)
                    stored = false
                } else {
                    // No next attempt first: whoever sees "ok" sees no stale retry time with it.
                    status.scheduled(nextAttempt: nil)
                    status.succeeded(
                        revision: String(result.revision),
                        at: self.wallClock.now(),
                        stillFailing: watchFailure
                    )
                    if failures > 0 {
                        self.logger.notice("etcd sync recovered", metadata: ["endpoint": "\(name)"])
                    }
                    failures = 0
                    listed = true
                }
            } catch {
                if Task.isCancelled {
                    // Cut short: the status holds the previous outcome, not this range read's.
                    waiters.interrupted()
                    return
                }
                failures += 1
                let message = "etcd \(name): range read failed: \(Self.describe(error))"
                self.logger.warning("\(message)")
                status.failed(message, at: self.wallClock.now())
                retryDelay = self.scheduleRetry(afterFailures: failures, status: status)
            }
            // Answered once the status is complete, so that a `sync` reports the next attempt too.
            waiters.finished()

            if listed {
                let outcome = await self.race { [keySpace, watchFailure] in
                    await self.watch(
                        endpoint: endpoint,
                        key: key,
                        rangeEnd: rangeEnd,
                        keySpace: keySpace,
                        failing: watchFailure != nil,
                        apply: apply,
                        status: status
                    )
                }
                let end: WatchEnd
                switch outcome ?? .syncRequested {
                case .syncRequested:
                    continue
                case .cancelled:
                    return
                case .compacted(let revision, let worked):
                    end = WatchEnd(compactRevision: revision, worked: worked)
                case .failed(let error, let connected, let worked):
                    if Task.isCancelled { return }
                    end = WatchEnd(error: error, connected: connected, worked: worked)
                    endpointIndex += 1
                }
                if end.worked {
                    watchEnds = 0
                    watchFailure = nil
                }
                watchEnds += 1
                // A watch that was up re-lists at once the first time (a compaction, a member that stopped: the
                // next endpoint); one that never came up, or again and again ended before it worked, backs off.
                let attempt = end.cameUp ? watchEnds - 1 : watchEnds
                watchFailure = self.record(
                    end,
                    endpoint: name,
                    inARow: watchEnds,
                    retrying: attempt > 0,
                    status: status
                )
                guard attempt > 0 else { continue }
                retryDelay = self.scheduleRetry(afterFailures: attempt, status: status)
            } else if stored {
                endpointIndex += 1
            }

            let slept = await self.race { [retryDelay] in
                do {
                    try await self.clock.sleep(for: retryDelay)
                    return .syncRequested
                } catch {
                    return .cancelled
                }
            }
            if case .cancelled = slept { return }
        }
    }

    /// The backoff delay after `failures` failed attempts in a row, recorded in `status` as the next attempt.
    private func scheduleRetry(afterFailures failures: Int, status: SyncStatusRecorder) -> Duration {
        let delay = self.configuration.backoff.delay(attempt: failures)
        status.scheduled(nextAttempt: self.wallClock.now() + Self.seconds(delay))
        return delay
    }

    /// Asks the running loop to re-list now and returns once that range read ended, successfully or not (the
    /// status says which). Waits for ``run(applying:status:)`` to start when it has not yet.
    ///
    /// - Throws: ``SyncInterruption`` when the source stops (or had stopped) before the range read ended, or the
    ///   calling task is cancelled.
    public func syncNow() async throws(SyncInterruption) {
        try await self.trigger.requestAndWait()
    }

    /// Returns once a ``syncNow()`` call waits (`true`), or when cancelled (`false`).
    private func nextSyncRequest() async -> Bool {
        await self.trigger.waitForRequest()
        return !Task.isCancelled && self.trigger.isRequested
    }

    /// Runs `operation` until it returns or a ``syncNow()`` arrives (then `.syncRequested`), whichever is first.
    private func race(_ operation: @escaping @Sendable () async -> WatchOutcome) async -> WatchOutcome? {
        await withTaskGroup(of: WatchOutcome?.self) { group in
            group.addTask { await operation() }
            group.addTask {
                await self.nextSyncRequest() ? .syncRequested : nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            if Task.isCancelled { return .cancelled }
            return first
        }
    }

    /// The end of the range of keys starting with `prefix`: the prefix with its last byte incremented.
    static func prefixEnd(_ prefix: [UInt8]) -> [UInt8] {
        var end = prefix
        while let last = end.last {
            if last < 0xFF {
                end[end.count - 1] = last + 1
                return end
            }
            end.removeLast()
        }
        return [0]
    }

    /// `duration` in seconds.
    private static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// A one-line description of a failure.
    static func describe(_ error: any Error) -> String {
        SocketErrorText.describe(error) ?? "\(error)"
    }
}
