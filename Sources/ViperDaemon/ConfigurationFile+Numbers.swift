extension ConfigurationFile {
    /// The whole number `key` sets, within `range`; `nil` when the file does not set it. Anything else is an error
    /// naming the file, the key and the range.
    func integer(_ key: String, in range: ClosedRange<Int>, unit: String = "") throws(ConfigurationError) -> Int? {
        guard let text = self.values[key] else { return nil }
        guard let value = Int(text), range.contains(value) else {
            let unit = unit.isEmpty ? "" : " of \(unit)"
            throw ConfigurationError(
                "\(self.place(key)): \(key) must be a number\(unit) from \(range.lowerBound) to \(range.upperBound), "
                    + "not '\(text)'"
            )
        }
        return value
    }

    /// The duration `key` sets in seconds (fractions allowed), within `range`; `nil` when the file does not set it.
    /// Bounded so that no number (`1e300`, `inf`, `nan`) overflows the conversion to a `Duration`.
    func seconds(
        _ key: String,
        in range: ClosedRange<Double>,
        note: String = ""
    ) throws(ConfigurationError) -> Duration? {
        guard let text = self.values[key] else { return nil }
        // Decimal only: `Double` also reads hexadecimal (`0x10`, `0x1p1`), which no one means for seconds.
        let decimal = text.utf8.allSatisfy { (0x30...0x39).contains($0) || "+-.eE".utf8.contains($0) }
        guard decimal, let seconds = Double(text), range.contains(seconds) else {
            throw ConfigurationError(
                "\(self.place(key)): \(key) must be a number of seconds from \(Self.format(range.lowerBound)) to "
                    + "\(Self.format(range.upperBound))\(note), not '\(text)'"
            )
        }
        // Counted in whole milliseconds: a value that would round to none is refused, not taken as 0 ("no limit").
        guard seconds == 0 || seconds >= 0.001 else {
            throw ConfigurationError("\(self.place(key)): \(key) must be 0 or at least 0.001 seconds, not '\(text)'")
        }
        return .milliseconds(Int64((seconds * 1000).rounded()))
    }

    private static func format(_ value: Double) -> String {
        value == value.rounded() ? String(Int64(value)) : String(value)
    }
}
