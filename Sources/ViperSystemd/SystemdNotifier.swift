import CSystemd
import Glibc

/// Sends service state notifications to systemd (`sd_notify(3)`) on the socket named by `NOTIFY_SOCKET`.
///
/// Every method is a no-op that returns `false` when the process was not started by systemd with `Type=notify`
/// (or `notify-reload`), so the daemon calls them unconditionally. The environment is left intact
/// (`unset_environment` is 0), so later notifications, the watchdog ones included, keep working.
///
/// ```swift
/// let notifier = SystemdNotifier()
/// notifier.ready(status: "serving 4 modules, 37 keys")
/// notifier.reloading(status: "reloading schemas")
/// notifier.ready(status: "serving 5 modules, 41 keys")
/// notifier.stopping(status: "finishing calls in progress")
/// ```
public struct SystemdNotifier: Sendable {
    /// Creates a notifier; it reads `NOTIFY_SOCKET` on every notification.
    public init() {}

    /// Whether notifications go anywhere: `NOTIFY_SOCKET` is set.
    public var isEnabled: Bool {
        getenv("NOTIFY_SOCKET") != nil
    }

    /// Tells systemd the service finished starting up (`READY=1`) and what it does (`STATUS=`).
    ///
    /// Also ends a reload started with ``reloading(status:)``.
    /// - Returns: Whether the notification was sent.
    @discardableResult
    public func ready(status: String) -> Bool {
        self.send("READY=1\n\(Self.statusAssignment(status))")
    }

    /// Updates the one-line status shown by `systemctl status` (`STATUS=`).
    ///
    /// - Returns: Whether the notification was sent.
    @discardableResult
    public func status(_ status: String) -> Bool {
        self.send(Self.statusAssignment(status))
    }

    /// Tells systemd the service is reloading its configuration (`RELOADING=1`); send ``ready(status:)`` when done.
    ///
    /// Carries `MONOTONIC_USEC=` (the current `CLOCK_MONOTONIC` time in microseconds), which systemd 253 and
    /// later require with `RELOADING=1` for `Type=notify-reload`; older versions ignore it.
    /// - Returns: Whether the notification was sent.
    @discardableResult
    public func reloading(status: String) -> Bool {
        self.send("RELOADING=1\nMONOTONIC_USEC=\(Self.monotonicMicroseconds())\n\(Self.statusAssignment(status))")
    }

    /// Tells systemd the service is shutting down (`STOPPING=1`).
    ///
    /// - Returns: Whether the notification was sent.
    @discardableResult
    public func stopping(status: String) -> Bool {
        self.send("STOPPING=1\n\(Self.statusAssignment(status))")
    }

    /// Resets the service's watchdog timer (`WATCHDOG=1`); see ``WatchdogService``.
    ///
    /// - Returns: Whether the notification was sent.
    @discardableResult
    public func watchdog() -> Bool {
        self.send("WATCHDOG=1")
    }

    /// Sends newline-separated `VARIABLE=value` assignments as they are (see `sd_notify(3)` for the variables).
    ///
    /// `sd_notify` blocks while the socket's queue is full: a `NOTIFY_SOCKET` whose reader does not read (not
    /// systemd's: a supervisor that hangs, a variable left over from another program) would hold the service up, its
    /// stop included. So it is called on a thread of its own (``NotificationSender``), waited for at most 2 s, and
    /// while one is stuck the next ones are dropped.
    /// - Returns: Whether the notification was sent: `false` if `NOTIFY_SOCKET` is unset, sending failed, or the
    ///   socket did not take it in time.
    @discardableResult
    public func send(_ assignments: String) -> Bool {
        guard self.isEnabled else { return false }
        return NotificationSender.shared.send(assignments)
    }

    /// The watchdog timeout systemd expects pings within (`WATCHDOG_USEC`), or `nil` when the watchdog is off.
    ///
    /// `nil` also when `WATCHDOG_PID` names another process, or the variables are malformed. Ping at half the
    /// returned interval, as `sd_watchdog_enabled(3)` recommends.
    public static func watchdogInterval() -> Duration? {
        var microseconds: UInt64 = 0
        guard sd_watchdog_enabled(0, &microseconds) > 0, microseconds > 0 else {
            return nil
        }
        return .microseconds(microseconds)
    }

    /// `STATUS=` with the status on one line (a newline would start a new assignment).
    static func statusAssignment(_ status: String) -> String {
        "STATUS=" + String(status.map { $0.isNewline ? " " : $0 })
    }

    /// The current `CLOCK_MONOTONIC` time in microseconds, the clock systemd compares `MONOTONIC_USEC` with.
    static func monotonicMicroseconds() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000 + UInt64(time.tv_nsec) / 1_000
    }
}
