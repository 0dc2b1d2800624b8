import Synchronization

/// The state of remote sync, shared by the source that updates it and the status call that reads it.
public final class SyncStatusRecorder: Sendable {
    /// A copy of the status at one moment. Times are seconds since the Unix epoch.
    public struct Snapshot: Sendable, Hashable {
        /// `off`, `starting`, `ok` or `failing`.
        public var state: String
        /// The endpoint, or empty when sync is off.
        public var source: String
        public var lastSuccess: Double?
        public var lastAttempt: Double?
        public var revision: String?
        public var lastError: String?
        public var nextAttempt: Double?
        /// Remote values rejected by the schemas in the last applied snapshot, as `module.section.item: reason`.
        public var rejected: [String]
    }

    private let state: Mutex<Snapshot>

    /// Creates a recorder for `source` (`nil` when sync is off).
    public init(source: String?) {
        self.state = Mutex(
            Snapshot(
                state: source == nil ? "off" : "starting",
                source: source ?? "",
                rejected: []
            )
        )
    }

    /// The current status.
    public var snapshot: Snapshot { self.state.withLock { $0 } }

    /// Records a successful fetch of `revision` at `time`.
    public func succeeded(revision: String?, at time: Double) {
        self.state.withLock {
            $0.state = "ok"
            $0.lastSuccess = time
            $0.lastAttempt = time
            $0.lastError = nil
            if let revision { $0.revision = revision }
        }
    }

    /// Records a failed attempt at `time` with a message a user can act on.
    public func failed(_ message: String, at time: Double) {
        self.state.withLock {
            $0.state = "failing"
            $0.lastAttempt = time
            $0.lastError = message
        }
    }

    /// Records when the next attempt is due (`nil` for a watch that is connected).
    public func scheduled(nextAttempt: Double?) {
        self.state.withLock { $0.nextAttempt = nextAttempt }
    }

    /// Records which remote values the schemas rejected in the snapshot just applied.
    public func rejected(_ entries: [String]) {
        self.state.withLock { $0.rejected = entries }
    }
}
