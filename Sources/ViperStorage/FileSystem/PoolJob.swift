import NIOPosix
import Synchronization

/// Blocking work started on a thread pool at once and awaited later: the group commit hands the next batch to the
/// pool before it answers the callers of the batch just written. The work always runs to its end, whatever becomes
/// of the tasks that wait for it (a batch other callers wait on must not be dropped).
final class PoolJob<Value: Sendable>: Sendable {
    // The waiter's continuation is unsafe (a checked one costs an allocation per durable batch): it is resumed once,
    // by `finish(_:)` when it takes it out of `.running`, or at once by `value()` when the work is done.
    private enum State {
        case running(waiter: UnsafeContinuation<Value, any Error>?)
        case done(Result<Value, any Error>)
    }

    private let state = Mutex(State.running(waiter: nil))

    /// Submits `body` to `pool`; a pool that is not running fails the job with `NIOThreadPoolError.ThreadPoolInactive`.
    init(on pool: NIOThreadPool, _ body: @escaping @Sendable () -> Value) {
        pool.submit { poolState in
            guard case .active = poolState else {
                self.finish(.failure(NIOThreadPoolError.ThreadPoolInactive()))
                return
            }
            self.finish(.success(body()))
        }
    }

    /// The work's result, once it is done.
    func value() async throws -> Value {
        try await withUnsafeThrowingContinuation { continuation in
            let done: Result<Value, any Error>? = self.state.withLock { state in
                guard case .done(let result) = state else {
                    state = .running(waiter: continuation)
                    return nil
                }
                return result
            }
            if let done { continuation.resume(with: done) }
        }
    }

    private func finish(_ result: Result<Value, any Error>) {
        let waiter = self.state.withLock { state -> UnsafeContinuation<Value, any Error>? in
            guard case .running(let waiter) = state else { return nil }
            state = .done(result)
            return waiter
        }
        waiter?.resume(with: result)
    }
}
