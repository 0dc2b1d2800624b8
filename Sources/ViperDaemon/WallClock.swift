import Glibc

/// The wall clock, for status times a person reads (not for measuring durations).
enum WallClock {
    /// Seconds since the Unix epoch.
    static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
