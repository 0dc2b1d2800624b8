/// Why ``RemoteSource/syncNow()`` returned before the attempt it waited for ended: nothing is known of that fetch.
public enum SyncInterruption: Error, Sendable, Hashable {
    /// The source stopped (its `run` was cancelled: the daemon is stopping) before the attempt ended, or it had
    /// stopped already.
    case sourceStopped
    /// The task waiting in ``RemoteSource/syncNow()`` was cancelled.
    case cancelled
}
