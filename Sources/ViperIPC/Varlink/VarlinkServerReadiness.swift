import Synchronization

/// Tracks whether a ``VarlinkServer`` is listening, for callers waiting on it.
final class VarlinkServerReadiness: Sendable {
    private enum Phase {
        case notStarted
        case starting
        case listening
        case stopped
    }

    private struct State {
        var phase = Phase.notStarted
        var waiters: [Int: CheckedContinuation<Void, any Error>] = [:]
        var nextWaiterID = 0
    }

    private let state = Mutex(State())

    /// Marks the server as starting; throws if it was started before.
    func start() throws(VarlinkServerError) {
        let started = self.state.withLock { state in
            guard case .notStarted = state.phase else { return false }
            state.phase = .starting
            return true
        }
        guard started else { throw .alreadyStarted }
    }

    /// Marks the server as listening and wakes the waiters.
    func markListening() {
        self.resumeWaiters(phase: .listening, result: .success(()))
    }

    /// Marks the server as stopped; waiters still waiting get ``VarlinkServerError/notListening``.
    func markStopped() {
        self.resumeWaiters(phase: .stopped, result: .failure(VarlinkServerError.notListening))
    }

    /// Returns once the server listens; throws if it stopped before, or `CancellationError` on cancellation.
    func waitUntilListening() async throws {
        let id = self.state.withLock { state in
            defer { state.nextWaiterID += 1 }
            return state.nextWaiterID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let immediate: Result<Void, any Error>? = self.state.withLock { state in
                    switch state.phase {
                    case .listening:
                        return .success(())
                    case .stopped:
                        return .failure(VarlinkServerError.notListening)
                    case .notStarted, .starting:
                        if Task.isCancelled { return .failure(CancellationError()) }
                        state.waiters[id] = continuation
                        return nil
                    }
                }
                if let immediate { continuation.resume(with: immediate) }
            }
        } onCancel: {
            let waiter = self.state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.resume(throwing: CancellationError())
        }
    }

    private func resumeWaiters(phase: Phase, result: Result<Void, any Error>) {
        let waiters = self.state.withLock { state in
            state.phase = phase
            defer { state.waiters = [:] }
            return state.waiters
        }
        for waiter in waiters.values {
            waiter.resume(with: result)
        }
    }
}
