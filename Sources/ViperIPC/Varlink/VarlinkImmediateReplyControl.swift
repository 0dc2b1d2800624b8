import Synchronization

/// Whether a connection's ``VarlinkImmediateReplyHandler`` may answer calls itself: only once the server accepted
/// the connection (a connection over a limit is refused, not served), and with the connection's activity, so that
/// calls answered on the spot count as activity for the idle timeout and for graceful shutdown.
final class VarlinkImmediateReplyControl: Sendable {
    private let activity = Mutex<VarlinkConnectionActivity?>(nil)
    /// Messages handed to the connection's task that it has not finished with (a `oneway` call included, which
    /// gets no reply but must still be done before a later call is answered).
    private let pending = Atomic<Int>(0)

    /// Whether the handler holds frames back until the task catches up.
    private let holding = Atomic<Bool>(false)
    /// What the handler does once the task has caught up.
    private let caughtUp = Mutex<(@Sendable () -> Void)?>(nil)

    /// The most messages handed to the connection's task and not finished: beyond, the handler keeps the frames it
    /// reads as bytes (see ``VarlinkImmediateReplyHandler``).
    static let backlogLimit = 32

    /// A message was handed to the connection's task.
    func handedOn() {
        self.pending.add(1, ordering: .relaxed)
    }

    /// The connection's task finished with a message handed to it.
    func finished() {
        let (_, left) = self.pending.subtract(1, ordering: .relaxed)
        if left <= Self.backlogLimit / 2, self.holding.load(ordering: .relaxed) {
            self.caughtUp.withLock { $0 }?()
        }
    }

    /// Whether the connection's task has as many messages as it may have.
    var backlogFull: Bool { self.pending.load(ordering: .relaxed) >= Self.backlogLimit }

    /// Calls `action` whenever the task finishes a message and is down to half of ``backlogLimit``, until
    /// ``stopHolding()``.
    func holdUntilCaughtUp(_ action: @escaping @Sendable () -> Void) {
        self.caughtUp.withLock { $0 = action }
        self.holding.store(true, ordering: .relaxed)
    }

    /// Ends ``holdUntilCaughtUp(_:)`` (and lets go of its action).
    func stopHolding() {
        self.holding.store(false, ordering: .relaxed)
        self.caughtUp.withLock { $0 = nil }
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
