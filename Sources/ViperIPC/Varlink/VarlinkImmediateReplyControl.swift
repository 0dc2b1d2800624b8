import Synchronization

/// Whether a connection's ``VarlinkImmediateReplyHandler`` may answer calls itself: only once the server accepted
/// the connection (a connection over a limit is refused, not served), and with the connection's activity, so that
/// calls answered on the spot count as activity for the idle timeout and for graceful shutdown.
final class VarlinkImmediateReplyControl: Sendable {
    private let activity = Mutex<VarlinkConnectionActivity?>(nil)
    /// Messages handed to the connection's task that it has not finished with (a `oneway` call included, which
    /// gets no reply but must still be done before a later call is answered).
    private let pending = Atomic<Int>(0)

    /// A message was handed to the connection's task.
    func handedOn() {
        self.pending.add(1, ordering: .relaxed)
    }

    /// The connection's task finished with a message handed to it.
    func finished() {
        self.pending.subtract(1, ordering: .relaxed)
    }

    /// Whether the connection's task has finished with every message handed to it.
    var nothingPending: Bool { self.pending.load(ordering: .relaxed) <= 0 }

    /// Lets the handler answer calls, recording them on `activity`.
    func enable(_ activity: VarlinkConnectionActivity) {
        self.activity.withLock { $0 = activity }
    }

    /// The connection's activity once enabled.
    var enabledActivity: VarlinkConnectionActivity? { self.activity.withLock { $0 } }
}
