import NIOCore
import ServiceLifecycle
import Synchronization

/// Runs a streaming call's handler until it ends, the client closes the connection, or the server shuts down
/// gracefully, whichever comes first: a stream that waits for news (a watch) would otherwise never notice that its
/// client went away, and would hold up the shutdown.
///
/// The handler runs in one child task; the caller waits for the first of the three events without a task of its
/// own for each (a stream is held open for as long as its client watches, so what it holds is counted per client).
enum StreamingCallRunner {
    /// Thrown by ``run(until:_:)`` when the channel closed before the handler ended.
    struct Closed: Error {}

    /// What ended the wait.
    private enum Ending: Sendable {
        case finished
        case closed
        case shutdown
    }

    /// Runs `body`. When `channel` closes first, cancels it, waits for it and throws ``Closed``; on a graceful
    /// shutdown, cancels it and returns or throws what it does; else returns or throws what it does.
    static func run(
        until channel: any Channel,
        _ body: @escaping @Sendable () async throws -> Void
    ) async throws {
        let first = FirstEnding()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                defer { first.report(.finished) }
                try await body()
            }
            channel.closeFuture.whenComplete { _ in first.report(.closed) }
            let ending = await withGracefulShutdownHandler {
                await first.wait()
            } onGracefulShutdown: {
                first.report(.shutdown)
            }
            switch ending {
            case .finished:
                try await group.next()
            case .shutdown:
                group.cancelAll()
                try await group.next()
            case .closed:
                group.cancelAll()
                // The client is gone: what the handler made of its cancellation cannot be told to anyone.
                _ = try? await group.next()
                throw Closed()
            }
        }
    }

    /// The first ending reported; a report before the waiter arrives is kept, later ones are dropped.
    private final class FirstEnding: Sendable {
        private struct State {
            var waiter: CheckedContinuation<Ending, Never>?
            var ending: Ending?
        }

        private let state = Mutex(State())

        /// Waits for the first ending.
        func wait() async -> Ending {
            await withCheckedContinuation { continuation in
                let ending = self.state.withLock { state -> Ending? in
                    if let ending = state.ending { return ending }
                    state.waiter = continuation
                    return nil
                }
                if let ending { continuation.resume(returning: ending) }
            }
        }

        /// Reports `ending`, unless another came first.
        func report(_ ending: Ending) {
            let waiter = self.state.withLock { state -> CheckedContinuation<Ending, Never>? in
                guard state.ending == nil else { return nil }
                state.ending = ending
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(returning: ending)
        }
    }
}
