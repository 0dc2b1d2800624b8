import Glibc

/// The monotonic clock (`CLOCK_MONOTONIC`) read directly, for code that must not link the concurrency runtime
/// (``MonotonicDeadline``) or that times itself in a tight loop (the load generator).
public enum MonotonicClock {
    /// Nanoseconds on the monotonic clock, now.
    public static var nanoseconds: Int64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }
}
