import ServiceLifecycle
import ViperPOSIX

/// Gives the memory freed by connections back to the system (``HeapMemory/trim()``) a moment after some ended: a
/// burst of clients holding large messages (1 MiB calls they never read the replies of) otherwise left the daemon's
/// resident memory near its peak. It trims at most once per ``delay``, and only after connections ended: an idle
/// daemon never wakes for it.
struct HeapTrimService: Service {
    /// An element after connections ended, coalesced (``ViperIPC/VarlinkServer/connectionEnds``).
    let connectionEnds: AsyncStream<Void>
    var delay: Duration = .seconds(2)
    var clock: any Clock<Duration> = ContinuousClock()
    /// Called with each trim's outcome (tests).
    var trimmed: @Sendable (Bool) -> Void = { _ in }

    func run() async throws {
        for await _ in self.connectionEnds.cancelOnGracefulShutdown() {
            // The connections that end meanwhile are trimmed for with these.
            let waited: Void? = try? await cancelWhenGracefulShutdown { [clock, delay] in
                try await clock.sleep(for: delay)
            }
            guard waited != nil else { return }
            self.trimmed(HeapMemory.trim())
        }
    }
}
