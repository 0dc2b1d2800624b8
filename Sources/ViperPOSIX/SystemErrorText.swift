import Glibc

/// The words for an `errno` value, e.g. "No such file or directory": the one place that calls `strerror`.
public enum SystemErrorText {
    /// The text of `code`, or `error CODE` when the C library has none.
    public static func describe(_ code: Int32) -> String {
        guard let text = strerror(code) else { return "error \(code)" }
        return String(cString: text)
    }
}
