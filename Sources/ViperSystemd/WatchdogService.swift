public import Logging
public import ServiceLifecycle

/// Pings the systemd watchdog (`WATCHDOG=1`) at a fixed interval while the daemon is healthy.
///
/// Run it when ``SystemdNotifier/watchdogInterval()`` is not `nil`, with half that interval. Before each ping it
/// asks `isHealthy`; when that answers `false`, or does not answer, no ping is sent, so systemd kills and
/// restarts a hung daemon once `WatchdogSec=` passes. It runs until a graceful shutdown or cancellation, then
/// returns without throwing. A `ServiceGroup` shuts services down in reverse order, so list it first to keep
/// pinging while the others drain.
///
/// ```swift
/// if let timeout = SystemdNotifier.watchdogInterval() {
///     services.insert(
///         .init(service: WatchdogService(notifier: notifier, interval: timeout / 2, clock: ContinuousClock(),
///                                        logger: logger, isHealthy: { await eventLoopAnswers() })),
///         at: 0
///     )
/// }
/// ```
public struct WatchdogService: Service {
    private let notifier: SystemdNotifier
    private let interval: Duration
    private let clock: any Clock<Duration>
    private let logger: Logger
    private let stopPingingAfter: Duration?
    private let isHealthy: @Sendable () async -> Bool

    /// Creates the service; it starts pinging once ``run()`` is called.
    ///
    /// - Parameters:
    ///   - notifier: Where the pings go.
    ///   - interval: The time between pings: half of `WATCHDOG_USEC`. Must be positive.
    ///   - clock: The clock to wait on, `ContinuousClock()` in the daemon.
    ///   - logger: Logs skipped pings (warning) and the test-only hang (notice).
    ///   - stopPingingAfter: **Test-only.** After this long, stop pinging for good while still running, as a hung
    ///     daemon would, so that a test under a real systemd can watch the watchdog kill and restart the daemon.
    ///     The daemon sets it from `VIPER_SETTINGSD_DEBUG_HANG_WATCHDOG_AFTER=<seconds>`; `nil` (the default)
    ///     in production.
    ///   - isHealthy: Asked before each ping; return `false` to skip it. The daemon checks that its event loop
    ///     still runs work. It should answer within the interval and return when its task is cancelled:
    ///     the service waits for it, at shutdown too.
    public init(
        notifier: SystemdNotifier,
        interval: Duration,
        clock: any Clock<Duration>,
        logger: Logger,
        stopPingingAfter: Duration? = nil,
        isHealthy: @escaping @Sendable () async -> Bool = { true }
    ) {
        precondition(interval > .zero, "the watchdog interval must be positive")
        self.notifier = notifier
        self.interval = interval
        self.clock = clock
        self.logger = logger
        self.stopPingingAfter = stopPingingAfter
        self.isHealthy = isHealthy
    }

    /// Pings every interval until a graceful shutdown or cancellation, then returns.
    public func run() async throws {
        let (shutdown, trigger) = AsyncStream<Never>.makeStream()
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                await self.ping(on: self.clock)
            }
            group.addTask {
                // Ends on graceful shutdown (at once if it already began), or when cancelled after the pings end.
                await withGracefulShutdownHandler {
                    for await _ in shutdown {}
                } onGracefulShutdown: {
                    trigger.finish()
                }
            }
            await group.next()
            group.cancelAll()
        }
    }

    /// The ping loop: a ping (when healthy) at the start and at every deadline after it, until cancelled.
    private func ping<C: Clock<Duration>>(on clock: C) async {
        let start = clock.now
        var deadline = start
        var wasHealthy = true
        var hung = false
        while !Task.isCancelled {
            if let stopPingingAfter = self.stopPingingAfter, start.duration(to: clock.now) >= stopPingingAfter {
                if !hung {
                    hung = true
                    self.logger.notice(
                        "no more watchdog pings: VIPER_SETTINGSD_DEBUG_HANG_WATCHDOG_AFTER simulates a hang"
                    )
                }
            } else if await self.isHealthy() {
                self.notifier.watchdog()
                if !wasHealthy {
                    self.logger.notice("healthy again, watchdog pings resumed")
                }
                wasHealthy = true
            } else if wasHealthy {
                wasHealthy = false
                self.logger.warning("unhealthy, watchdog pings skipped until it recovers")
            }
            deadline = deadline.advanced(by: self.interval)
            let now = clock.now
            if deadline < now {
                // A slow health check: start again from now rather than pinging in a burst.
                deadline = now
            }
            do {
                try await clock.sleep(until: deadline, tolerance: nil)
            } catch {
                return
            }
        }
    }
}
