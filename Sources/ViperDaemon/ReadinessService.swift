import Logging
import ServiceLifecycle
import ViperIPC
import ViperPOSIX
import ViperSystemd

/// Tells systemd `READY=1` once the server accepts connections, and `STOPPING=1` when a graceful shutdown starts.
/// A moment after start-up it drops the code pages that start-up left resident (``HeapTrimScheduler/dropCodePages()``).
struct ReadinessService: Service {
    let server: VarlinkServer
    let notifier: SystemdNotifier
    let status: @Sendable () -> String
    let logger: Logger
    /// How long after readiness the start-up code is dropped: the first calls (a socket-activated client's)
    /// are answered before, with nothing to fault back in.
    var trimDelay: Duration = .seconds(1)
    var clock: any Clock<Duration> = ContinuousClock()

    func run() async throws {
        try await self.server.waitUntilListening()
        let status = self.status()
        self.notifier.ready(status: status)
        self.logger.info("ready: \(status)")
        // Start-up code (schema loading, library initialisation) need not stay resident: only what serving uses
        // comes back (idle memory).
        let trimmed: Void? = try? await cancelWhenGracefulShutdown { [clock, trimDelay] in
            try await clock.sleep(for: trimDelay)
        }
        if trimmed != nil {
            HeapTrimScheduler.dropCodePages()
        }
        try? await gracefulShutdown()
        self.notifier.stopping(status: "stopping: finishing calls in progress")
    }
}
