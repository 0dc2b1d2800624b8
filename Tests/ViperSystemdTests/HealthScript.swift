import Synchronization

/// An `isHealthy` hook that answers from a script and reports each call, so tests wait for calls, not for time.
final class HealthScript: Sendable {
    /// Yields the number of calls so far after each call.
    let calls: AsyncStream<Int>
    private let continuation: AsyncStream<Int>.Continuation
    private let state: Mutex<(answers: [Bool], count: Int)>
    private let then: Bool

    /// Answers `answers` in order, then `then` for ever.
    init(_ answers: [Bool], then: Bool) {
        (self.calls, self.continuation) = AsyncStream<Int>.makeStream()
        self.state = Mutex((answers: answers, count: 0))
        self.then = then
    }

    /// The hook: the next answer.
    @Sendable func isHealthy() async -> Bool {
        let (answer, count) = self.state.withLock { state in
            state.count += 1
            return (state.answers.isEmpty ? self.then : state.answers.removeFirst(), state.count)
        }
        self.continuation.yield(count)
        return answer
    }

    /// How many times the hook has been called.
    var callCount: Int { self.state.withLock { $0.count } }

    /// Returns once the hook has been called `count` times in all.
    func waitForCalls(_ count: Int) async {
        for await calls in self.calls where calls >= count {
            return
        }
    }
}
