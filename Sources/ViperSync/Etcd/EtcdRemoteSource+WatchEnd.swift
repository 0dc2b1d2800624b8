import Logging
import ViperSettings

/// Watches that end: what the log and `status` say, so that watches that keep ending before they work (a gateway
/// that ends every watch stream at once, or answers every watch with a compaction) are told once, as a failure that
/// lasts until a watch works, rather than once per attempt.
extension EtcdRemoteSource {
    /// How one watch ended, in words.
    struct WatchEnd {
        /// Why it ended, e.g. `watch failed: watch: the stream ended`.
        var reason: String
        /// The revision etcd compacted, when a compaction ended it.
        var compactRevision: Int64?
        /// Whether etcd created the watch (or answered it with a compaction) before it ended.
        var cameUp: Bool
        /// Whether the watch delivered a change, or its member answered a probe, before it ended.
        var worked: Bool

        /// A watch that etcd cancelled because the revision it started from was compacted.
        init(compactRevision: Int64, worked: Bool) {
            self.reason =
                "the watch was cancelled as compacted: etcd keeps no revision before \(compactRevision), though the "
                + "watch started after a range read"
            self.compactRevision = compactRevision
            self.cameUp = true
            self.worked = worked
        }

        /// A watch that failed; `connected`: after etcd created it.
        init(error: any Error, connected: Bool, worked: Bool) {
            self.reason = "watch failed: \(EtcdRemoteSource.describe(error))"
            self.compactRevision = nil
            self.cameUp = connected
            self.worked = worked
        }
    }

    /// Logs `end`, the `inARow`th watch in a row that ended before it worked, and records it in `status`.
    ///
    /// The first is logged as it always was (a compaction at notice, a failure as a warning); the second as a
    /// warning that watches keep ending, once for the whole run of them; the later ones at debug only. A watch that
    /// works again says so (see ``watch(endpoint:key:rangeEnd:keySpace:failing:apply:status:)``).
    ///
    /// - Returns: What `status` says while the source backs off (`retrying`), for the range reads between the
    ///   watches to keep it (they succeed; the sync does not); `nil` when the source re-lists at once.
    func record(
        _ end: WatchEnd,
        endpoint name: String,
        inARow count: Int,
        retrying: Bool,
        status: SyncStatusRecorder
    ) -> String? {
        let message = "etcd \(name): \(end.reason)"
        let now = self.wallClock.now()
        switch count {
        case 1:
            if let revision = end.compactRevision {
                self.logger.notice(
                    "etcd watch revision compacted, re-listing",
                    metadata: ["endpoint": "\(name)", "compactRevision": "\(revision)"]
                )
            } else {
                self.logger.warning("\(message)")
            }
        case 2:
            self.logger.warning(
                """
                \(message); watches keep ending before they deliver a change: retrying with backoff, re-listing \
                each time (not logged again until a watch works)
                """
            )
        default:
            self.logger.debug("\(message)", metadata: ["watchesEnded": "\(count)"])
        }
        guard retrying else {
            if end.compactRevision == nil {
                status.failed(message, at: now)
                status.scheduled(nextAttempt: now)
            }
            return nil
        }
        let failure =
            count == 1
            ? message
            : "\(message) (\(count) watches in a row ended before they delivered a change; retrying with backoff)"
        status.failed(failure, at: now)
        return failure
    }
}
