import Synchronization

/// A clock that moves only when a test advances it: a sleep waits until ``advance(by:)`` reaches its deadline, or
/// until its task is cancelled. ``pendingSleeps`` tells the test what the code under test waits for, so that it
/// waits on that condition rather than on real time.
public final class ManualClock: Clock, Sendable {
    public struct Instant: InstantProtocol {
        /// The time since the clock was created.
        public var offset: Duration

        public func advanced(by duration: Duration) -> Self { Self(offset: self.offset + duration) }
        public func duration(to other: Self) -> Duration { other.offset - self.offset }
        public static func < (lhs: Self, rhs: Self) -> Bool { lhs.offset < rhs.offset }
    }

    private struct Sleeper {
        var id: Int
        var deadline: Instant
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var nextID = 0
        var sleepers: [Sleeper] = []
    }

    private let state = Mutex(State())

    /// A clock at offset zero.
    public init() {}

    public var now: Instant { self.state.withLock { $0.now } }

    public var minimumResolution: Duration { .nanoseconds(1) }

    /// The time left to each sleep in progress, shortest first.
    public var pendingSleeps: [Duration] {
        self.state.withLock { state in state.sleepers.map { state.now.duration(to: $0.deadline) }.sorted() }
    }

    /// Moves the time on by `duration`, ending the sleeps whose deadline it reaches.
    public func advance(by duration: Duration) {
        let due = self.state.withLock { state in
            state.now = state.now.advanced(by: duration)
            let now = state.now
            let due = state.sleepers.filter { $0.deadline <= now }
            state.sleepers.removeAll { $0.deadline <= now }
            return due
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    public func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        let id = self.state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                // Cancellation is set before its handler runs: either it is seen here, or the handler finds the
                // sleeper.
                let decision = self.state.withLock { state -> Decision in
                    if Task.isCancelled { return .cancelled }
                    if deadline <= state.now { return .due }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    return .waiting
                }
                switch decision {
                case .due: continuation.resume()
                case .cancelled: continuation.resume(throwing: CancellationError())
                case .waiting: break
                }
            }
        } onCancel: {
            let sleeper = self.state.withLock { state -> Sleeper? in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return state.sleepers.remove(at: index)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// What a sleep does when it starts: end at once (its deadline passed, or its task is cancelled), or wait for
    /// ``advance(by:)`` or cancellation.
    private enum Decision {
        case due
        case cancelled
        case waiting
    }
}
