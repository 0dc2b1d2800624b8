import CSystemd
import Dispatch
import Synchronization

/// Calls `sd_notify` on a queue of its own and waits for it at most `patience`: a socket that does not take a
/// notification (its queue full, its reader stuck) never holds the caller up for longer. While a notification has
/// been waiting longer than that, the next ones are dropped at once; once it goes through, they are sent again.
final class NotificationSender: Sendable {
    /// The one sender of the process: notifications keep their order.
    static let shared = NotificationSender()

    private let queue = DispatchQueue(label: "io.viper.settings.sd-notify")
    /// When each notification handed to the queue and not sent yet was, oldest first.
    private let pending = Mutex<[DispatchTime]>([])
    private let patienceNanoseconds: UInt64

    init(patienceSeconds: Int = 2) {
        self.patienceNanoseconds = UInt64(patienceSeconds) * 1_000_000_000
    }

    /// Whether `assignments` were sent within the patience; `false` at once while an earlier one is stuck.
    func send(_ assignments: String) -> Bool {
        let now = DispatchTime.now()
        let queued = self.pending.withLock { starts -> Bool in
            if let oldest = starts.first, now.uptimeNanoseconds - oldest.uptimeNanoseconds > self.patienceNanoseconds {
                return false
            }
            starts.append(now)
            return true
        }
        guard queued else { return false }
        let done = DispatchSemaphore(value: 0)
        let sent = Mutex(false)
        self.queue.async {
            let result = sd_notify(0, assignments) > 0
            sent.withLock { $0 = result }
            self.pending.withLock { _ = $0.removeFirst() }
            done.signal()
        }
        guard done.wait(timeout: now + .nanoseconds(Int(self.patienceNanoseconds))) == .success else { return false }
        return sent.withLock { $0 }
    }
}
