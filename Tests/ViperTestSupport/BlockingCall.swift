import Dispatch
import Synchronization

/// A blocking call a test must not hang on: it runs on a thread of its own, and the test waits for it only so long.
public enum BlockingCall {
    /// The result of `body`, or `nil` when it has not returned within `seconds`; it is then left running, so that a
    /// regression that hangs fails its test instead of stopping the whole run. Give a generous bound: it is not a
    /// measure of speed.
    public static func result<T: Sendable>(
        within seconds: Int,
        _ body: @escaping @Sendable () throws -> T
    ) async throws -> T? {
        let outcome = Outcome<T>()
        DispatchQueue.global().async {
            let result = Result { try body() }
            outcome.result.withLock { $0 = result }
        }
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            if let result = outcome.result.withLock({ $0 }) { return try result.get() }
            try await Task.sleep(for: .milliseconds(10))
        }
        return nil
    }

    /// Where the thread leaves the result.
    private final class Outcome<T: Sendable>: Sendable {
        let result = Mutex<Result<T, any Error>?>(nil)
    }
}
