import Logging
import Synchronization

/// Bounds the log lines that any peer can cause at will (a malformed message, a connection over a limit): a flood
/// of them would bury the audit entries, and under journald make its rate limit drop them.
///
/// Each kind of line gets `linesPerWindow` lines per `window`; past them, lines of that kind are dropped until
/// the window ends, and the first line logged after that says how many were dropped. The last line before the
/// limit says so.
final class VarlinkLogLimiter: Sendable {
    /// The kinds of lines limited, each counted on its own.
    enum Kind: Int, CaseIterable {
        case protocolViolation
        case messageTooLarge
        case connectionRefused
    }

    private struct Window {
        var start: ContinuousClock.Instant
        var logged = 0
        var dropped = 0
    }

    let linesPerWindow: Int
    let window: Duration
    private let now: @Sendable () -> ContinuousClock.Instant
    private let windows: Mutex<[Window]>

    /// Creates a limiter; `now` is the clock (injected by tests).
    init(
        linesPerWindow: Int = 10,
        window: Duration = .seconds(10),
        now: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now }
    ) {
        precondition(linesPerWindow >= 1, "linesPerWindow must be at least 1")
        self.linesPerWindow = linesPerWindow
        self.window = window
        self.now = now
        let start = now()
        self.windows = Mutex(Kind.allCases.map { _ in Window(start: start) })
    }

    /// The metadata to log a line of `kind` with, or `nil` to drop it.
    func admit(_ kind: Kind) -> Logger.Metadata? {
        let now = self.now()
        return self.windows.withLock { windows -> Logger.Metadata? in
            var current = windows[kind.rawValue]
            defer { windows[kind.rawValue] = current }
            var metadata: Logger.Metadata = [:]
            if now - current.start >= self.window {
                if current.dropped > 0 {
                    metadata["log_dropped"] = "\(current.dropped) similar lines were not logged before this one"
                }
                current = Window(start: now)
            }
            guard current.logged < self.linesPerWindow else {
                current.dropped += 1
                return nil
            }
            current.logged += 1
            if current.logged == self.linesPerWindow {
                metadata["log_limit"] =
                    "\(self.linesPerWindow) similar lines logged within \(self.window); more are dropped until it passes"
            }
            return metadata
        }
    }
}
