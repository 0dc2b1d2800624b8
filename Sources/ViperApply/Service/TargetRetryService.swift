public import ServiceLifecycle

/// Waits out each retry the Interactor asks for (``ApplyInteractor/RetryRequest``) on the injected clock and hands it
/// back when it is due. Each wait is a child task of its own, so that a short one is not held up by a long one; at
/// graceful shutdown (or cancellation), the waits are cancelled.
public struct TargetRetryService: Service {
    let interactor: ApplyInteractor
    let clock: any Clock<Duration>

    public init(interactor: ApplyInteractor, clock: any Clock<Duration> = ContinuousClock()) {
        self.interactor = interactor
        self.clock = clock
    }

    public func run() async throws {
        await withDiscardingTaskGroup { group in
            for await request in self.interactor.retryRequests.cancelOnGracefulShutdown() {
                group.addTask {
                    do {
                        try await self.clock.sleep(for: request.delay)
                    } catch {
                        return  // cancelled: the applier stops
                    }
                    await self.interactor.retry(target: request.target, attempt: request.attempt)
                }
            }
            group.cancelAll()
        }
    }
}
