import SettingsAPI

/// Values in log lines are bounded: a value may be up to the daemon's `max-value-size` (64 KiB by default), a log
/// line should stay readable.
extension SettingValue {
    /// The longest value text, in bytes of UTF-8, that a log line shows in full.
    public static let logTextLimit = 512

    /// The value as compact JSON for a log line; when longer than `limit` bytes, its first `limit` bytes (cut on a
    /// character boundary) followed by `… (truncated, N bytes)`, so that the line says it is cut.
    public func logText(limit: Int = SettingValue.logTextLimit) -> String {
        Self.shown(json: self.json.serialized(), limit: limit, cutNote: "truncated, ")
    }

    /// `json` with its invisible characters escaped (``escapingInvisible(_:)``); when longer than `limit` bytes, its
    /// first `limit` bytes (cut on a character boundary) followed by `… (CUTNOTEN bytes)`.
    static func shown(json: String, limit: Int, cutNote: String = "") -> String {
        let text = Self.escapingInvisible(json)
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
        return "\(kept)… (\(cutNote)\(size) bytes)"
    }

    /// `json` with the invisible characters that reorder or hide the text around them (the bidirectional controls
    /// U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069 and the byte order mark U+FEFF) written as JSON escapes
    /// (`\u202e`), the same value: JSON serialization escapes control characters, not these, and a log line shown on
    /// a terminal could read backwards.
    static func escapingInvisible(_ json: String) -> String {
        guard json.unicodeScalars.contains(where: QuotedText.isInvisible) else { return json }
        var escaped = ""
        for scalar in json.unicodeScalars {
            if QuotedText.isInvisible(scalar) {
                let hex = String(scalar.value, radix: 16)
                escaped += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            } else {
                escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

}
