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

    private static func set(_ name: String, _ value: String?) {
        if let value {
            setenv(name, value, 1)
        } else {
            unsetenv(name)
        }
    }
}
