import Logging
import ServiceLifecycle
import UnixSignals
import ViperIPC
import ViperSystemd

/// Re-reads the targets on every SIGHUP until graceful shutdown.
struct TargetReloadService: Service {
    let loader: ApplyTargetLoader
    let interactor: ApplyInteractor
    let notifier: SystemdNotifier

    func run() async throws {
        let signals = await UnixSignalsSequence(trapping: .sighup)
        // Each SIGHUP is handled at once, not after the apply the one before started: a target that SIGHUP removes
        // while its check runs must have that apply stopped (the Interactor, reentered, withdraws it), and the apply
        // that runs goes on with the targets as loaded now.
        await withDiscardingTaskGroup { group in
            for await _ in signals.cancelOnGracefulShutdown() {
                group.addTask {
                    // A stop meanwhile stops the check or reload that the targets' apply runs, as it does the
                    // follower's.
                    await cancelWhenGracefulShutdown {
                        self.notifier.reloading(status: "re-reading the targets")
                        await self.interactor.reload(from: self.loader)
                        await self.interactor.tellReady()
                    }
                }
            }
        }
    }
}

/// Runs the passes the Interactor asks for (``ApplyInteractor/passRequests``), one at a time, apart from the follower,
/// which reads the daemon's stream on meanwhile: a burst of changes behind a slow check is applied by one more pass,
/// from the newest values, not by a pass for each read. A stop (SIGTERM) stops the check or reload a pass runs.
struct ApplyPassService: Service {
    let interactor: ApplyInteractor

    func run() async throws {
        await cancelWhenGracefulShutdown {
            for await _ in self.interactor.passRequests {
                await self.interactor.applyDirtyWhenSettled()
            }
        }
    }
}

/// Tells systemd `READY=1` once the control socket listens and every target was rendered from the daemon's current
/// values (or, when the daemon does not answer within `patience`, with a status that says so), and `STOPPING=1`
/// when a graceful shutdown starts. The Interactor tells each change of its status meanwhile and after.
struct ApplyReadinessService: Service {
    let server: VarlinkServer
    let interactor: ApplyInteractor
    let patience: Duration
    let logger: Logger

    func run() async throws {
        try await self.server.waitUntilListening()
        let clock = ContinuousClock()
        let deadline = clock.now + self.patience
        // A stop asked for meanwhile (SIGTERM) ends the wait at once: it is not held up for the patience, and
        // READY=1 is not told of a service that is stopping.
        while await !self.interactor.isSettled, clock.now < deadline, !Task.isShuttingDownGracefully {
            try await Task.sleep(for: .milliseconds(20))  // polling interval; ends when every target was applied
        }
        if !Task.isShuttingDownGracefully {
            let status = await self.interactor.tellReady()
            self.logger.info("ready: \(status)")
            try? await gracefulShutdown()
        }
        await self.interactor.tellStopping()
    }
}
