import Synchronization

/// Keeps a schema reload apart from the calls that read or write settings. Between serving new schemas and storing
/// what they changed (one `schema` change per module, see ``SettingsInteractor/adopt(previous:)``), a module's served
/// schema is newer than its stored revision: a value resolved then carries a revision at which it did not hold, and
/// a write checked against the old schema would be stored after the new one is in force. So a reload begins once the
/// calls in progress are done, and calls that come meanwhile wait for it to end; watchers read their current values
/// outside of it too, and a read answered on the spot is not answered during one (the caller's task answers it).
public final class SchemaReloadGate: Sendable {
    private struct State {
        /// Calls in progress (see ``settled(_:)``).
        var calls = 0
        /// Those waiting for the reload to end.
        var waiters: [CheckedContinuation<Void, Never>] = []
        /// The reload waiting for the calls in progress to end.
        var reload: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())
    /// Moves on when a reload begins (to an odd number) and when it ends (to an even one): read without the lock by
    /// a `Get` answered on the spot. Written under the lock, so that a call admitted sees no reload begun.
    private let generation = Atomic<UInt64>(0)

    private var reloading: Bool { self.generation.load(ordering: .acquiring) & 1 == 1 }

    /// Creates an open gate.
    public init() {}

    /// A reload begins: calls and readers that come now wait until ``endReload()``; returns once the calls in
    /// progress are done. Reloads run one after another (a precondition).
    public func beginReload() async {
        precondition(!self.reloading, "a reload began while another was under way")
        await withCheckedContinuation { continuation in
            let wait = self.state.withLock { state in
                self.generation.add(1, ordering: .releasing)
                guard state.calls > 0 else { return false }
                state.reload = continuation
                return true
            }
            if !wait { continuation.resume() }
        }
    }

    /// The reload ended (whether or not it succeeded): waiting calls and readers go on.
    public func endReload() {
        let waiters = self.state.withLock { state in
            self.generation.add(1, ordering: .releasing)
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Runs `body` (a call that reads or writes settings) outside of a reload: after the one under way, if any, and
    /// before the next one begins.
    public func settled<T>(_ body: () async throws -> T) async rethrows -> T {
        while true {
            let admitted = self.state.withLock { state in
                guard !self.reloading else { return false }
                state.calls += 1
                return true
            }
            if admitted { break }
            await self.waitForReload()
        }
        defer {
            let reload = self.state.withLock { state -> CheckedContinuation<Void, Never>? in
                state.calls -= 1
                guard state.calls == 0 else { return nil }
                defer { state.reload = nil }
                return state.reload
            }
            reload?.resume()
        }
        return try await body()
    }

    /// Waits until no reload is under way; returns the generation to give ``unchanged(since:)`` once read.
    public func settled() async -> UInt64 {
        while true {
            if let generation = self.settledGeneration { return generation }
            await self.waitForReload()
        }
    }

    /// The generation, when no reload is under way (without waiting); `nil` during one.
    public var settledGeneration: UInt64? {
        let generation = self.generation.load(ordering: .acquiring)
        return generation & 1 == 1 ? nil : generation
    }

    private func waitForReload() async {
        await withCheckedContinuation { continuation in
            let wait = self.state.withLock {
                guard self.reloading else { return false }
                $0.waiters.append(continuation)
                return true
            }
            if !wait { continuation.resume() }
        }
    }

    /// How many readers and calls wait for the reload to end (for tests).
    package var waitingReaders: Int { self.state.withLock { $0.waiters.count } }

    /// Whether no reload began since ``settled()`` returned `generation`: what was read meanwhile belongs together.
    public func unchanged(since generation: UInt64) -> Bool {
        self.generation.load(ordering: .acquiring) == generation
    }
}
