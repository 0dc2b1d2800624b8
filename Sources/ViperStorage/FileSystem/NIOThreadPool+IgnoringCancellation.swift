import NIOPosix

extension NIOThreadPool {
    /// Runs blocking work on the pool, like `runIfActive`, but the work is never dropped when the calling task is
    /// cancelled: a batch of journal appends that other callers wait on must run to the end. Throws
    /// `NIOThreadPoolError.ThreadPoolInactive` when the pool is not running.
    func runIgnoringCancellation<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await PoolJob(on: self) { Result(catching: body) }.value().get()
    }
}
