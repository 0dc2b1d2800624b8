import Synchronization

/// Marks the time a schema reload spends between serving new schemas and storing what they changed (one `schema`
/// change per module, see ``SettingsInteractor/adopt(previous:)``). Meanwhile a module's served schema is newer than
/// its stored revision: values resolved then carry a revision at which they did not hold. Watchers read schemas and
/// states outside of that time, so that the current values they send match their cursor.
public final class SchemaReloadGate: Sendable {
    private struct State {
        var reloading = false
        /// Moves on when a reload begins and when it ends.
        var generation: UInt64 = 0
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    /// Creates an open gate.
    public init() {}

    /// A reload begins: readers wait until ``endReload()``.
    public func beginReload() {
        self.state.withLock {
            $0.reloading = true
            $0.generation &+= 1
        }
    }

    /// The reload ended (whether or not it succeeded): waiting readers go on.
    public func endReload() {
        let waiters = self.state.withLock { state in
            state.reloading = false
            state.generation &+= 1
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Waits until no reload is under way; returns the generation to give ``unchanged(since:)`` once read.
    public func settled() async -> UInt64 {
        while true {
            if let generation = self.state.withLock({ $0.reloading ? nil : $0.generation }) { return generation }
            await withCheckedContinuation { continuation in
                let wait = self.state.withLock {
                    guard $0.reloading else { return false }
                    $0.waiters.append(continuation)
                    return true
                }
                if !wait { continuation.resume() }
            }
        }
    }

    /// How many readers wait for the reload to end (for tests).
    package var waitingReaders: Int { self.state.withLock { $0.waiters.count } }

    /// Whether no reload began since ``settled()`` returned `generation`: what was read meanwhile belongs together.
    public func unchanged(since generation: UInt64) -> Bool {
        self.state.withLock { $0.generation == generation }
    }
}
