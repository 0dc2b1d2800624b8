import Synchronization

/// Wakes a polling loop early and lets callers wait for the attempt that their request started.
///
/// `requestAndWait()` queues a waiter and wakes the loop; the loop takes the queued waiters when an attempt starts
/// (``beginAttempt()``) and resumes them when it ends. Waiters that arrive during an attempt wait for the next one,
/// which starts at once. After ``finish()`` (the loop ended), requests return immediately.
final class HTTPSyncTrigger: Sendable {
    private struct State {
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var nextWaiterID = 0
        var wakeRequested = false
        var sleeper: CheckedContinuation<Void, Never>?
        var finished = false
    }

    private let state = Mutex(State())

    /// Asks for an attempt and returns once an attempt that started after this call ended, when the loop ended,
    /// or when the calling task is cancelled.
    func requestAndWait() async {
        let id = self.state.withLock { state in
            state.nextWaiterID += 1
            return state.nextWaiterID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let (resumeNow, sleeper) = self.state.withLock {
                    state -> (Bool, CheckedContinuation<Void, Never>?) in
                    if state.finished || Task.isCancelled { return (true, nil) }
                    state.waiters[id] = continuation
                    state.wakeRequested = true
                    let sleeper = state.sleeper
                    state.sleeper = nil
                    return (false, sleeper)
                }
                if resumeNow { continuation.resume() }
                sleeper?.resume()
            }
        } onCancel: {
            let waiter = self.state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.resume()
        }
    }

    /// Called by the loop as an attempt starts: takes the waiters that this attempt will answer.
    func beginAttempt() -> [CheckedContinuation<Void, Never>] {
        self.state.withLock { state in
            state.wakeRequested = false
            let waiters = Array(state.waiters.values)
            state.waiters = [:]
            return waiters
        }
    }

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

    /// Called when the loop ends: answers every waiter, and makes later requests return at once.
    func finish() {
        let (waiters, sleeper) = self.state.withLock { state in
            state.finished = true
            let waiters = Array(state.waiters.values)
            state.waiters = [:]
            let sleeper = state.sleeper
            state.sleeper = nil
            return (waiters, sleeper)
        }
        for waiter in waiters { waiter.resume() }
        sleeper?.resume()
    }
}
