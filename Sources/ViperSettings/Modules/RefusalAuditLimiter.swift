public import Logging
import Synchronization

/// Bounds how many refused writes of one uid become audit entries: at most ``burst`` a second each. A client that may
/// not write can otherwise make the daemon log as fast as it can call, and push the entries of real changes out of
/// the journal (journald drops what exceeds its rate limit, and rotates the rest away). The entries not logged are
/// counted, and the next one logged says how many of that uid's refusals it left out. Shared by every module.
public final class RefusalAuditLimiter: Sendable {
    /// The most refusals of one uid logged in a second.
    public static let burst = 20

    private struct Window {
        var start: ContinuousClock.Instant
        var logged = 0
        var suppressed = 0
    }

    private let now: @Sendable () -> ContinuousClock.Instant
    private let windows = Mutex<[UInt32: Window]>([:])

    /// Creates a limiter that reads the time from `now`.
    public init(now: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now }) {
        self.now = now
    }

    /// Whether a refusal of `uid` is to be logged now: `nil` when it is not (it is counted), else the number of this
    /// uid's refusals left out since the last one logged (0 usually).
    public func admit(uid: UInt32) -> Int? {
        let now = self.now()
        return self.windows.withLock { windows in
            var window = windows[uid] ?? Window(start: now)
            if now - window.start >= .seconds(1) {
                window = Window(start: now, suppressed: window.suppressed)
            }
            let admitted: Int?
            if window.logged < Self.burst {
                window.logged += 1
                admitted = window.suppressed
                window.suppressed = 0
            } else {
                window.suppressed += 1
                admitted = nil
            }
            windows[uid] = window
            // Forget the uids that went quiet with nothing left out: the table stays as small as the set of uids
            // refused lately.
            if windows.count > 1024 {
                windows = windows.filter { now - $0.value.start < .seconds(1) || $0.value.suppressed > 0 }
            }
            return admitted
        }
    }

    /// Logs the refusal of `caller` at notice as an audit entry (`message`, and `method` with the caller's uid, pid
    /// and groups as metadata), unless its uid was refused ``burst`` times in this second already; the entry says how
    /// many were left out before it (`SUPPRESSED`).
    public func logRefusal(of caller: Caller, method: String, key: String? = nil, _ message: String, to logger: Logger)
    {
        guard let suppressed = self.admit(uid: caller.uid) else { return }
        var metadata: Logger.Metadata = [
            "method": "\(method)",
            "client_uid": "\(caller.uid)",
            "client_pid": "\(caller.pid)",
            "client_gids": "\(caller.allGroups.map(String.init).joined(separator: ","))",
        ]
        if let key { metadata["key"] = "\(key)" }
        var text = message
        if suppressed > 0 {
            metadata["suppressed"] = "\(suppressed)"
            text +=
                " (and \(suppressed) refusals of uid \(caller.uid) before this one, not logged: at most \(Self.burst) a second are)"
        }
        logger.notice("\(text)", metadata: metadata)
    }
}
