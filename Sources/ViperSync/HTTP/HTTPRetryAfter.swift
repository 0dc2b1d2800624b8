import Glibc

/// The wait an HTTP `Retry-After` header asks for (RFC 9110 §10.2.3): a number of seconds (`120`) or an HTTP date
/// (`Fri, 27 Nov 2026 10:00:00 GMT`).
enum HTTPRetryAfter {
    /// The wait `value` asks for from `now` (seconds since the Unix epoch); zero for a date already past, `nil` when
    /// there is no value or it cannot be read.
    static func wait(_ value: String?, now: Double) -> Duration? {
        guard let value else { return nil }
        let text = String(value.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
        guard !text.isEmpty else { return nil }
        if text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
            return Int64(text).map { .seconds($0) } ?? .seconds(Int64.max)
        }
        guard let date = Self.date(text) else { return nil }
        return .milliseconds(Int64(max(0, date - now) * 1000))
    }

    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// An IMF-fixdate (`Fri, 27 Nov 2026 10:00:00 GMT`), the form servers send, as seconds since the epoch.
    private static func date(_ text: String) -> Double? {
        let words = text.split(separator: " ")
        guard words.count == 6, words[0].hasSuffix(","), words[5] == "GMT",
            let day = Int32(words[1]), let month = Self.months.firstIndex(of: String(words[2])),
            let year = Int32(words[3]), year >= 1970
        else { return nil }
        let clock = words[4].split(separator: ":").compactMap { Int32($0) }
        guard clock.count == 3 else { return nil }
        var parts = tm()
        parts.tm_year = year - 1900
        parts.tm_mon = Int32(month)
        parts.tm_mday = day
        (parts.tm_hour, parts.tm_min, parts.tm_sec) = (clock[0], clock[1], clock[2])
        return Double(timegm(&parts))
    }
}
