/// What applying one target did.
public struct ApplyOutcome: Sendable, Equatable {
    /// The result, in one word.
    public enum Result: String, Sendable, Codable {
        /// The rendered bytes equal the destination's: nothing written, nothing reloaded.
        case unchanged
        /// The destination was replaced (and reloaded, when the target has a reload command).
        case written
        /// Dry run: the destination would be replaced (its check passed, when it has one).
        case wouldWrite = "would-write"
        /// The check refused the rendered file: the destination is untouched.
        case checkFailed = "check-failed"
        /// The reload failed: the previous file was put back and reloaded again.
        case reloadFailed = "reload-failed"
        /// Rendering or writing failed (a full disk, a read-only directory): the destination is untouched.
        case failed
    }

    public var result: Result
    /// The check command's result, when it ran.
    public var check: CommandResult?
    /// The reload command's result, when it ran.
    public var reload: CommandResult?
    /// After a failed reload: the result of reloading the restored previous file.
    public var rollbackReload: CommandResult?
    /// Why it failed, in words, for `failed`, `check-failed` and `reload-failed`.
    public var error: String?
    /// A unified diff of the destination against what was rendered (empty when unchanged).
    public var diff: String
    /// Why the reload command was not run after the file was written (`--root` without `--run-reloads`).
    public var reloadSkipped: String?
    /// What differs besides the bytes, or what was changed: `mode 0666 -> 0600`, `owner root -> nobody`, `group root
    /// -> nogroup`, `symbolic link -> regular file` (empty when only the bytes differ, or nothing does).
    public var attributes: [String] = []
    /// Whether the failure can heal by itself, so that applying again later may succeed: a write that failed (a
    /// full disk, a read-only file system), a reload that failed, a check that could not be started. Not a check
    /// that refused the rendered bytes: the same bytes are refused again.
    public var retryable = false
    /// Whether the applier's stop cut it short (its check or reload was stopped): not a verdict on the target, so it
    /// is neither recorded nor retried; the next start applies the target again.
    public var interrupted = false

    public init(
        result: Result,
        check: CommandResult? = nil,
        reload: CommandResult? = nil,
        rollbackReload: CommandResult? = nil,
        error: String? = nil,
        diff: String = ""
    ) {
        self.result = result
        self.check = check
        self.reload = reload
        self.rollbackReload = rollbackReload
        self.error = error
        self.diff = diff
    }

    /// Whether the destination now holds what was rendered (or holds it already).
    public var succeeded: Bool { self.result == .unchanged || self.result == .written || self.result == .wouldWrite }
}
