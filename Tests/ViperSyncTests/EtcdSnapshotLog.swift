import SettingsAPI
import Synchronization
import ViperSettings

/// Records the snapshots a source applies and lets a test wait, with a deadline, for one that matches.
final class EtcdSnapshotLog: Sendable {
    private typealias Predicate = @Sendable (RemoteSnapshot) -> Bool

    private struct State {
        var latest: RemoteSnapshot?
        var count = 0
        var nextID = 0
        var waiters: [Int: (Predicate, CheckedContinuation<RemoteSnapshot?, Never>)] = [:]
        var cancelled: Set<Int> = []
    }

    private let state = Mutex(State())

    /// The apply callback to hand to the source.
    var apply: @Sendable (RemoteSnapshot) async -> RemoteApplyOutcome {
        { snapshot in
            self.record(snapshot)
            return .stored
        }
    }

    /// The last snapshot applied.
    var latest: RemoteSnapshot? { self.state.withLock { $0.latest } }

    /// How many snapshots were applied.
    var count: Int { self.state.withLock { $0.count } }

    /// Records `snapshot` and wakes the waiters it satisfies.
    func record(_ snapshot: RemoteSnapshot) {
        let ready = self.state.withLock { state in
            state.latest = snapshot
            state.count += 1
            let ready = state.waiters.filter { $0.value.0(snapshot) }
            for id in ready.keys { state.waiters[id] = nil }
            return ready.values.map(\.1)
        }
        for continuation in ready { continuation.resume(returning: snapshot) }
    }

    /// Waits until the latest snapshot satisfies `predicate`, for at most `timeout`.
    func wait(
        timeout: Duration = .seconds(60),
        _ what: String,
        until predicate: @escaping @Sendable (RemoteSnapshot) -> Bool
    ) async throws -> RemoteSnapshot {
        let found = await withTaskGroup(of: RemoteSnapshot?.self) { group in
            group.addTask { await self.next(matching: predicate) }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        guard let found else {
            throw EtcdTestFailure(
                "no snapshot with \(what) within \(timeout); latest: \(String(describing: self.latest))"
            )
        }
        return found
    }

    /// The first snapshot (the latest one, or a later one) that satisfies `predicate`; `nil` when cancelled.
    private func next(matching predicate: @escaping Predicate) async -> RemoteSnapshot? {
        let id = self.state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<RemoteSnapshot?, Never>) in
                let immediate: RemoteSnapshot?? = self.state.withLock { state in
                    if let latest = state.latest, predicate(latest) { return .some(latest) }
                    if state.cancelled.contains(id) { return .some(nil) }
                    state.waiters[id] = (predicate, continuation)
                    return nil
                }
                if let immediate { continuation.resume(returning: immediate) }
            }
        } onCancel: {
            let continuation = self.state.withLock { state in
                guard let waiter = state.waiters.removeValue(forKey: id) else {
                    state.cancelled.insert(id)
                    return CheckedContinuation<RemoteSnapshot?, Never>?.none
                }
                return waiter.1
            }
            continuation?.resume(returning: nil)
        }
    }
}
