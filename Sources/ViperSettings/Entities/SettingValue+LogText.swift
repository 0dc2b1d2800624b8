/// Values in log lines are bounded: a value may be up to the daemon's `max-value-size` (64 KiB by default), a log
/// line should stay readable.
extension SettingValue {
    /// The longest value text, in bytes of UTF-8, that a log line shows in full.
    public static let logTextLimit = 512

    /// The value as compact JSON for a log line; when longer than `limit` bytes, its first `limit` bytes (cut on a
    /// character boundary) followed by `… (truncated, N bytes)`, so that the line says it is cut.
    public func logText(limit: Int = SettingValue.logTextLimit) -> String {
        let text = self.json.serialized()
        let size = text.utf8.count
        guard size > limit else { return text }
        var kept = ""
        var used = 0
        for character in text {
            let length = character.utf8.count
            if used + length > limit { break }
            kept.append(character)
            used += length
        }
        return "\(kept)… (truncated, \(size) bytes)"
    }
}
