import Foundation
import Glibc

/// Changes the process environment for the duration of a test, then restores it.
///
/// The environment is shared by the whole test process: only tests in ``ProcessEnvironmentTests``, which run
/// one at a time, use this.
public enum ProcessEnvironment {
    /// Runs `body` with the variables in `changes` set (or unset, for `nil` values), then restores them.
    public static func with<T>(
        _ changes: [String: String?],
        _ body: () async throws -> T
    ) async rethrows -> T {
        var saved: [String: String?] = [:]
        for (name, value) in changes {
            saved[name] = getenv(name).map { String(cString: $0) }
            Self.set(name, value)
        }
        defer {
            for (name, value) in saved {
                Self.set(name, value)
            }
        }
        return try await body()
    }

    /// The variable's value, `nil` when unset.
    public static func value(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }

    /// Set or unset while no child is being started (``ProcessStarts``): a child started meanwhile would read the
    /// environment as it changes.
    private static func set(_ name: String, _ value: String?) {
        _ = ProcessStarts.serialized {
            if let value {
                setenv(name, value, 1)
            } else {
                unsetenv(name)
            }
        }
    }

    /// The variables a test sets in its own process for what it checks there (``with(_:_:)``), which a child
    /// started by a test running beside it must not inherit: a daemon given another test's `NOTIFY_SOCKET` sends it
    /// its notifications, and blocks once that socket's queue is full and nobody reads it.
    static let ownVariables: Set<String> = [
        "NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID", "LISTEN_FDS", "LISTEN_PID", "LISTEN_FDNAMES",
        "JOURNAL_STREAM",
    ]

    /// The environment for a child process: the test process's, without ``ownVariables``, with `changes` applied.
    public static func forChild(_ changes: [String: String] = [:]) -> [String: String] {
        ProcessStarts.serialized { Self.unlockedForChild(changes) }
    }

    /// ``forChild(_:)``, for a caller that holds ``ProcessStarts``'s lock.
    static func unlockedForChild(_ changes: [String: String]) -> [String: String] {
        ProcessInfo.processInfo.environment.filter { !Self.ownVariables.contains($0.key) }
            .merging(changes) { _, new in new }
    }
}
