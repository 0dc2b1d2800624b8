import Synchronization
import ViperSettings

/// Wakes a source's loop early and lets callers wait for the attempt that their request started, and hear what
/// became of it.
///
/// `requestAndWait()` queues a waiter and wakes the loop; the loop takes the queued waiters when an attempt starts
/// (``beginAttempt()``) and answers them when it ends (``SyncTrigger/Waiters/finished()``), or when it stops before
/// (``SyncTrigger/Waiters/interrupted()``). Waiters that arrive during an attempt wait for the next one, which starts
/// at once; waiters that arrive before the loop starts wait for it. After ``finish()`` (the loop ended), requests
/// fail at once with ``SyncInterruption/sourceStopped``. No waiter is ever answered without an outcome.
final class SyncTrigger: Sendable {
    /// The waiters one attempt answers. Answer them exactly once; ``finished()`` once the status records the
    /// attempt's outcome.
    struct Waiters: Sendable {
        fileprivate let continuations: [CheckedContinuation<Result<Void, SyncInterruption>, Never>]

        /// Whether no one waits for this attempt.
        var isEmpty: Bool { self.continuations.isEmpty }

        /// The attempt ended, and the status says how.
        func finished() { self.answer(.success(())) }

        /// The attempt did not end: the source stops.
        func interrupted() { self.answer(.failure(.sourceStopped)) }

        private func answer(_ result: Result<Void, SyncInterruption>) {
            for continuation in self.continuations { continuation.resume(returning: result) }
        }
    }

    private struct State {
        var waiters: [Int: CheckedContinuation<Result<Void, SyncInterruption>, Never>] = [:]
        var nextWaiterID = 0
        var wakeRequested = false
        var sleeper: CheckedContinuation<Void, Never>?
        var finished = false
    }

    private let state = Mutex(State())

    /// Asks for an attempt and returns once an attempt that started after this call ended.
    ///
    /// - Throws: ``SyncInterruption/sourceStopped`` when the loop ended (or had ended) first,
    ///   ``SyncInterruption/cancelled`` when the calling task is cancelled first.
    func requestAndWait() async throws(SyncInterruption) {
        let id = self.state.withLock { state in
            state.nextWaiterID += 1
            return state.nextWaiterID
        }
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation {
                (continuation: CheckedContinuation<Result<Void, SyncInterruption>, Never>) in
                let (early, sleeper) = self.state.withLock {
                    state -> (SyncInterruption?, CheckedContinuation<Void, Never>?) in
                    if state.finished { return (.sourceStopped, nil) }
                    if Task.isCancelled { return (.cancelled, nil) }
                    state.waiters[id] = continuation
                    state.wakeRequested = true
                    let sleeper = state.sleeper
                    state.sleeper = nil
                    return (nil, sleeper)
                }
                if let early { continuation.resume(returning: .failure(early)) }
                sleeper?.resume()
            }
        } onCancel: {
            let waiter = self.state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.resume(returning: .failure(.cancelled))
        }
        try result.get()
    }

    /// Called by the loop as an attempt starts: takes the waiters that this attempt will answer.
    func beginAttempt() -> Waiters {
        self.state.withLock { state in
            state.wakeRequested = false
            let waiters = Array(state.waiters.values)
            state.waiters = [:]
            return Waiters(continuations: waiters)
        }
    }

    /// Whether ``requestAndWait()`` was called since the last attempt began.
    var isRequested: Bool { self.state.withLock { $0.wakeRequested } }

    /// Waits until ``requestAndWait()`` is called (or was called since the last attempt began), or the task is
    /// cancelled.
    func waitForRequest() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = self.state.withLock { state -> Bool in
                    if state.wakeRequested || state.finished || Task.isCancelled { return true }
                    state.sleeper = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let sleeper = self.state.withLock { state in
                let sleeper = state.sleeper
                state.sleeper = nil
                return sleeper
            }
            sleeper?.resume()
        }
    }

    /// Called when the loop starts: requests wait for attempts again.
    func start() {
        self.state.withLock { $0.finished = false }
    }

    /// Called when the loop ends: tells every waiter left that the source stopped, and makes later requests fail
    /// at once the same way.
    func finish() {
        let (waiters, sleeper) = self.state.withLock { state in
            state.finished = true
            let waiters = Array(state.waiters.values)
            state.waiters = [:]
            let sleeper = state.sleeper
            state.sleeper = nil
            return (waiters, sleeper)
        }
        Waiters(continuations: waiters).interrupted()
        sleeper?.resume()
    }
}
