/// A deadline on the monotonic clock (`CLOCK_MONOTONIC`), for the timeouts of blocking system calls such as `poll`.
///
/// The command-line client uses it rather than `ContinuousClock`: that clock lives in the concurrency runtime, and
/// linking that runtime into a static executable links libdispatch too, whose start-up work then runs in every
/// `settingsctl get`.
public struct MonotonicDeadline: Sendable, Hashable {
    /// Nanoseconds on the monotonic clock.
    private let nanoseconds: Int64

    /// The deadline `seconds` from now.
    public init(secondsFromNow seconds: Int) {
        let (product, overflow) = Int64(clamping: seconds).multipliedReportingOverflow(by: 1_000_000_000)
        let (sum, overflowSum) = MonotonicClock.nanoseconds.addingReportingOverflow(overflow ? .max : product)
        self.nanoseconds = overflowSum ? .max : sum
    }

    /// Milliseconds left until the deadline, rounded up so that a wait never ends just short of it; 0 once it has
    /// passed.
    public var millisecondsLeft: Int64 {
        let left = self.nanoseconds - min(MonotonicClock.nanoseconds, self.nanoseconds)
        return left / 1_000_000 + (left % 1_000_000 == 0 ? 0 : 1)
    }
}
