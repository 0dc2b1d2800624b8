import Glibc

/// The compact UTC time stamp put in the names of files moved aside: `20250131T235959Z`.
enum UTCTimestamp {
    /// The current time.
    static func now() -> String {
        var now = time(nil)
        var parts = tm()
        gmtime_r(&now, &parts)
        return Self.format(parts)
    }

    /// Formats broken-down UTC time.
    static func format(_ parts: tm) -> String {
        func padded(_ value: Int32, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return padded(parts.tm_year + 1900, 4) + padded(parts.tm_mon + 1, 2) + padded(parts.tm_mday, 2) + "T"
            + padded(parts.tm_hour, 2) + padded(parts.tm_min, 2) + padded(parts.tm_sec, 2) + "Z"
    }
}
