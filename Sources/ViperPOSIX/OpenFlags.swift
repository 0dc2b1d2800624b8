/// Flags of `open(2)` that Swift's Glibc module does not declare (they need `_GNU_SOURCE`).
public enum OpenFlags {
    /// `O_PATH` (010000000 on Linux but alpha, PA-RISC and SPARC): a descriptor that only names a file or directory,
    /// for the `*at` calls, `fstat` and `/proc/self/fd`, whatever its permissions.
    public static let pathOnly: Int32 = 0o10_000_000
}
