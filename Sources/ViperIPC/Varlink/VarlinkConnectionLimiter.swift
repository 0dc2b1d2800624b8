import Synchronization

/// Counts open connections, in total and per peer uid, against the configured maximums. Root may open a few
/// connections beyond the total (``VarlinkServerConfiguration/reservedForRoot``): an administrator can still reach a
/// service that other users' connections filled, to see and to mend.
final class VarlinkConnectionLimiter: Sendable {
    /// Why a connection was refused.
    enum Refusal: Sendable, Hashable {
        case tooManyConnections
        case tooManyConnectionsForUID
    }

    private struct Counts {
        var total = 0
        var perUID: [UInt32: Int] = [:]
    }

    private let maximumConnections: Int
    private let maximumConnectionsPerUID: Int
    private let reservedForRoot: Int
    private let counts = Mutex(Counts())

    init(maximumConnections: Int, maximumConnectionsPerUID: Int, reservedForRoot: Int = 0) {
        self.maximumConnections = maximumConnections
        self.maximumConnectionsPerUID = maximumConnectionsPerUID
        self.reservedForRoot = reservedForRoot
    }

    /// Counts a new connection from `uid`, or returns why it must be refused (then nothing is counted).
    func acquire(uid: UInt32) -> Refusal? {
        self.counts.withLock { counts in
            let maximum = self.maximumConnections + (uid == 0 ? self.reservedForRoot : 0)
            if counts.total >= maximum { return .tooManyConnections }
            let forUID = counts.perUID[uid, default: 0]
            if forUID >= self.maximumConnectionsPerUID { return .tooManyConnectionsForUID }
            counts.total += 1
            counts.perUID[uid] = forUID + 1
            return nil
        }
    }

    /// Uncounts a connection counted by ``acquire(uid:)``.
    func release(uid: UInt32) {
        self.counts.withLock { counts in
            counts.total -= 1
            let forUID = counts.perUID[uid, default: 1] - 1
            counts.perUID[uid] = forUID > 0 ? forUID : nil
        }
    }
}
