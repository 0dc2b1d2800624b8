/// Wall-clock time and duration conversions for the HTTP source (status times are Unix seconds).
enum HTTPUnixTime {
    /// `duration` in seconds, as a floating-point number.
    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// `duration` in whole nanoseconds, for NIO's `TimeAmount`.
    static func nanoseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000
    }

    /// `duration` for messages: `300 ms`, `5 s`, `1.5 s`.
    static func describe(_ duration: Duration) -> String {
        let seconds = Self.seconds(duration)
        if seconds < 1 { return "\(Int((seconds * 1000).rounded())) ms" }
        if seconds == seconds.rounded() { return "\(Int(seconds)) s" }
        return "\((seconds * 10).rounded() / 10) s"
    }
}
