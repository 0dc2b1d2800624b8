public import Foundation

/// Starts the test process's children one at a time.
///
/// Foundation's `Process.run()` on Linux gives each child one end of a socket pair, without close-on-exec, whose
/// closing tells it that the child ended; the child it starts closes every descriptor open when it listed them. A
/// child started by another thread in between (the tests run in parallel) inherits the socket, or a `Pipe`, made
/// meanwhile and keeps it open: the first child is then never seen to end (`waitUntilExit()` waits forever) while the
/// second one lives, nor is a pipe's end of file read. Everything that makes descriptors for a child and starts it
/// goes through ``serialized(_:)``.
public enum ProcessStarts {
    /// Recursive: a child's pipes are made, then it is started (``Process/runAlone()``), under one hold.
    private static let lock = NSRecursiveLock()

    /// Runs `body` (making a child's pipes, starting it) while no other child is being made or started.
    public static func serialized<Result>(_ body: () throws -> Result) rethrows -> Result {
        self.lock.lock()
        defer { self.lock.unlock() }
        return try body()
    }
}

extension Process {
    /// `run()`, while no other child is being made or started (``ProcessStarts``); without an environment of its
    /// own, the child gets the test process's but for the variables tests set for themselves
    /// (``ProcessEnvironment/forChild(_:)``).
    public func runAlone() throws {
        try ProcessStarts.serialized {
            if self.environment == nil { self.environment = ProcessEnvironment.unlockedForChild([:]) }
            try self.run()
        }
    }
}
