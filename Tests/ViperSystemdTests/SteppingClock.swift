import Synchronization

/// A clock whose sleeps return at once, moving its time to their deadlines, for a given number of sleeps.
///
/// After the last one, ``exhausted`` yields and further sleeps wait for cancellation, so a test knows the code
/// under test has gone through exactly that many waits, in no real time.
final class SteppingClock: Clock, Sendable {
    struct Instant: InstantProtocol {
        /// The time since the clock was created.
        var offset: Duration

        func advanced(by duration: Duration) -> Self { Self(offset: self.offset + duration) }
        func duration(to other: Self) -> Duration { other.offset - self.offset }
        static func < (lhs: Self, rhs: Self) -> Bool { lhs.offset < rhs.offset }
    }

    /// Yields once, when the last allowed sleep has returned and the next one started.
    let exhausted: AsyncStream<Void>
    private let exhaustedContinuation: AsyncStream<Void>.Continuation
    private let state: Mutex<(now: Instant, sleepsLeft: Int)>

    /// A clock at offset zero that lets `sleeps` sleeps pass.
    init(sleeps: Int) {
        (self.exhausted, self.exhaustedContinuation) = AsyncStream<Void>.makeStream()
        self.state = Mutex((now: Instant(offset: .zero), sleepsLeft: sleeps))
    }

    var now: Instant { self.state.withLock { $0.now } }

    var minimumResolution: Duration { .nanoseconds(1) }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        try Task.checkCancellation()
        let passes = self.state.withLock { state in
            guard state.sleepsLeft > 0 else {
                return false
            }
            state.sleepsLeft -= 1
            state.now = max(state.now, deadline)
            return true
        }
        guard passes else {
            self.exhaustedContinuation.yield()
            self.exhaustedContinuation.finish()
            // Parked until the test cancels; the duration only bounds a test that forgets to.
            try await Task.sleep(for: .seconds(600))
            return
        }
    }
}
