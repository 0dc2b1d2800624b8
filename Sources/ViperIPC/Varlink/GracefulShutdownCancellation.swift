import ServiceLifecycle

/// Runs `operation`, cancelling it when the service group shuts down gracefully; returns or throws what it does.
///
/// Unlike ServiceLifecycle's `cancelWhenGracefulShutdown`, this cannot miss a shutdown triggered while it
/// starts: a graceful shutdown handler registered after the trigger runs at once.
func withCancellationOnGracefulShutdown(_ operation: @escaping @Sendable () async throws -> Void) async throws {
    let (shutdown, trigger) = AsyncStream<Never>.makeStream()
    try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask {
            try await operation()
        }
        group.addTask {
            // Ends on graceful shutdown, or when cancelled after `operation` finished.
            await withGracefulShutdownHandler {
                for await _ in shutdown {}
            } onGracefulShutdown: {
                trigger.finish()
            }
        }
        // Whichever finishes first, cancel the other and wait for it; an error of `operation` propagates.
        try await group.next()
        group.cancelAll()
        try await group.next()
    }
}
