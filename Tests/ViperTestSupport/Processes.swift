import Foundation
public import Glibc

/// Process helpers for tests.
public enum Processes {
    /// Whether process `pid` runs: it exists and is not a zombie waiting to be reaped (a killed process is one until
    /// whoever adopted it reaps it).
    public static func isRunning(_ pid: pid_t) -> Bool {
        guard let stat = try? Files.read("/proc/\(pid)/stat") else { return false }
        return !stat.contains(") Z ")
    }

    /// The process id written in `file` (by `echo $! > FILE`), or nil when there is none yet.
    public static func pid(in file: String) -> pid_t? {
        guard let text = try? Files.read(file) else { return nil }
        return pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
