import ServiceLifecycle
import UnixSignals

/// Runs `reload` on every SIGHUP until graceful shutdown. Connections are untouched.
struct ReloadService: Service {
    let reload: @Sendable () async -> Void

    func run() async throws {
        let signals = await UnixSignalsSequence(trapping: .sighup)
        for await _ in signals.cancelOnGracefulShutdown() {
            await self.reload()
        }
    }
}
