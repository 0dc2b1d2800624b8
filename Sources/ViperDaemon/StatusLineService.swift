import ServiceLifecycle
import ViperSystemd

/// Keeps the systemd `STATUS=` line true between start and reloads: every `interval` it works the line out again
/// (remote sync going from ok to failing and back, state files that became usable or unusable) and sends it when
/// it changed. `systemctl status` then says what `settingsctl status` says.
struct StatusLineService: Service {
    let notifier: SystemdNotifier
    let interval: Duration
    let clock: any Clock<Duration>
    /// The line as it is now; may look at the state files.
    let line: @Sendable () async -> String

    func run() async throws {
        var last: String?
        let clock = self.clock
        let interval = self.interval
        while !Task.isCancelled {
            let slept: Void? = try? await cancelWhenGracefulShutdown { try await clock.sleep(for: interval) }
            guard slept != nil else { return }
            let line = await self.line()
            if line != last {
                self.notifier.status(line)
                last = line
            }
        }
    }
}
