import Synchronization

/// Lets one asynchronous body run at a time, the others waiting in the order they came: the remote layers are
/// written by the source's snapshots and by a reload applying the last one again, and an older snapshot must not
/// land between the modules of a newer one.
final class SerialGate: Sendable {
    private struct State {
        var busy = false
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    /// Runs `body` once every body that came before it has ended.
    func run<T>(_ body: () async -> T) async -> T {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let admitted = self.state.withLock { state in
                if state.busy {
                    state.waiting.append(continuation)
                    return false
                }
                state.busy = true
                return true
            }
            if admitted { continuation.resume() }
        }
        defer {
            let next = self.state.withLock { state -> CheckedContinuation<Void, Never>? in
                guard !state.waiting.isEmpty else {
                    state.busy = false
                    return nil
                }
                return state.waiting.removeFirst()
            }
            next?.resume()
        }
        return await body()
    }
}
