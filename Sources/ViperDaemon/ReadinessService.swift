import Logging
import ServiceLifecycle
import ViperIPC
import ViperPOSIX
import ViperSystemd

/// Tells systemd `READY=1` once the server accepts connections, and `STOPPING=1` when a graceful shutdown starts.
struct ReadinessService: Service {
    let server: VarlinkServer
    let notifier: SystemdNotifier
    let status: @Sendable () -> String
    let logger: Logger

    func run() async throws {
        try await self.server.waitUntilListening()
        let status = self.status()
        self.notifier.ready(status: status)
        self.logger.info("ready: \(status)")
        // Start-up code (schema loading, library initialisation) need not stay resident: only what serving uses
        // comes back (idle memory).
        ExecutableMemory.trimCode()
        try? await gracefulShutdown()
        self.notifier.stopping(status: "stopping: finishing calls in progress")
    }
}
