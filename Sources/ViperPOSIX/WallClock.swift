import Glibc

/// The wall clock, for times a person reads (status times, the names of files moved aside); never for measuring
/// durations, which take a `Clock`.
///
/// It is a value so that it can be injected: tests pass one that reads a fixed time.
public struct WallClock: Sendable {
    private let read: @Sendable () -> Double

    /// A clock that reads `read`, seconds since the Unix epoch.
    public init(_ read: @escaping @Sendable () -> Double) {
        self.read = read
    }

    /// The system's clock (`CLOCK_REALTIME`).
    public static let system = WallClock {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// Seconds since the Unix epoch, now.
    public func now() -> Double { self.read() }

    /// The compact UTC time stamp put in the names of files moved aside: `20250131T235959Z`.
    public func compactUTCStamp() -> String {
        let seconds = self.now()
        var time = time_t(seconds.isFinite ? max(0, min(seconds, 253_402_300_799)) : 0)
        var parts = tm()
        gmtime_r(&time, &parts)
        return Self.compactUTCStamp(parts)
    }

    /// Formats broken-down UTC time as `20250131T235959Z`.
    static func compactUTCStamp(_ parts: tm) -> String {
        func padded(_ value: Int32, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return padded(parts.tm_year + 1900, 4) + padded(parts.tm_mon + 1, 2) + padded(parts.tm_mday, 2) + "T"
            + padded(parts.tm_hour, 2) + padded(parts.tm_min, 2) + padded(parts.tm_sec, 2) + "Z"
    }
}
