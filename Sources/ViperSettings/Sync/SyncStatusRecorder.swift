import Synchronization

/// The state of remote sync, shared by the source that updates it and the Sync Interactor that reads it.
public final class SyncStatusRecorder: Sendable {
    private let state: Mutex<SyncStatus>

    /// Creates a recorder for `source` (`nil` when sync is off).
    public init(source: String?) {
        self.state = Mutex(SyncStatus(state: source == nil ? .off : .starting, source: source ?? ""))
    }

    /// The current status.
    public var snapshot: SyncStatus { self.state.withLock { $0 } }

    /// Records the revision of the remote values cached on disk, at start: it is in force until a fetch says
    /// otherwise.
    public func restored(revision: String) {
        self.state.withLock { if $0.revision == nil { $0.revision = revision } }
    }

    /// Records a successful fetch of `revision` at `time`. With `problem`, the source fails all the same (an etcd
    /// watch that keeps ending after each re-list): the last success and the revision move on, the state stays
    /// failing with `problem` as the last error.
    public func succeeded(revision: String?, at time: Double, stillFailing problem: String? = nil) {
        self.state.withLock {
            $0.state = problem == nil ? .ok : .failing
            $0.lastSuccess = time
            $0.lastAttempt = time
            $0.lastError = problem
            if let revision { $0.revision = revision }
        }
    }

    /// Records a failed attempt at `time` with a message a user can act on.
    public func failed(_ message: String, at time: Double) {
        self.state.withLock {
            $0.state = .failing
            $0.lastAttempt = time
            $0.lastError = message
        }
    }

    /// Records when the next attempt is due (`nil` for a watch that is connected).
    public func scheduled(nextAttempt: Double?) {
        self.state.withLock { $0.nextAttempt = nextAttempt }
    }

    /// Records how many remote values are in force, per layer, over every module served.
    public func inForce(recommended: Int, mandatory: Int) {
        self.state.withLock {
            $0.recommendedInForce = recommended
            $0.mandatoryInForce = mandatory
        }
    }

    /// Records which remote values the schemas rejected in the snapshot just applied.
    public func rejected(_ entries: [String]) {
        self.state.withLock { $0.rejected = entries }
    }
}
