import NIOCore
import Synchronization

/// Runs a streaming call's handler until it ends or the client closes the connection, whichever comes first: a
/// stream that waits for news (a watch) would otherwise never notice that its client went away.
enum ChannelCloseWaiter {
    /// Thrown by ``run(until:_:)`` when the channel closed before the handler ended.
    struct Closed: Error {}

    /// Runs `body`; cancels it when `channel` closes, and then throws ``Closed``.
    static func run(
        until channel: any Channel,
        _ body: @escaping @Sendable () async throws -> Void
    ) async throws {
        try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                try await body()
                return false
            }
            group.addTask {
                await Self.waitForClose(channel)
                return !Task.isCancelled
            }
            defer { group.cancelAll() }
            var closed = try await group.next() ?? false
            group.cancelAll()
            // The other child: the handler ends once cancelled; the waiter at once.
            while let other = try await group.next() {
                closed = closed || other
            }
            if closed { throw Closed() }
        }
    }

    /// Returns when `channel` is closed or the task is cancelled.
    static func waitForClose(_ channel: any Channel) async {
        let once = ResumeOnce()
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                once.set(continuation)
                channel.closeFuture.whenComplete { _ in once.resume() }
                if Task.isCancelled { once.resume() }
            }
        } onCancel: {
            once.resume()
        }
    }

    /// A continuation resumed at most once, by whoever comes first; a resume before the continuation is set is kept.
    private final class ResumeOnce: Sendable {
        private struct State {
            var continuation: CheckedContinuation<Void, Never>?
            var resumed = false
        }

        private let state = Mutex(State())

        func set(_ continuation: CheckedContinuation<Void, Never>) {
            let resumeNow = self.state.withLock { state in
                if state.resumed { return true }
                state.continuation = continuation
                return false
            }
            if resumeNow { continuation.resume() }
        }

        func resume() {
            let continuation = self.state.withLock { state -> CheckedContinuation<Void, Never>? in
                guard !state.resumed else { return nil }
                state.resumed = true
                defer { state.continuation = nil }
                return state.continuation
            }
            continuation?.resume()
        }
    }
}
