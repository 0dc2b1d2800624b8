import Synchronization

/// What the writers of the crash loop were told: per key, the last acknowledged value and the values sent after it
/// whose fate is unknown (the daemon was killed before it answered); the highest revision acknowledged.
final class CrashLedger: Sendable {
    struct Key: Sendable {
        /// The last value the daemon acknowledged, or what a restart showed.
        var settled: Int64 = 0
        /// Values sent after `settled` without an answer: any of them may have been made durable.
        var unknown: Set<Int64> = []
    }

    private let state = Mutex<(keys: [String: Key], revision: Int64, acknowledged: Int)>(([:], 0, 0))
    private let stopped = Atomic<Bool>(false)

    /// Whether the writers are to stop.
    var isStopped: Bool {
        get { self.stopped.load(ordering: .relaxed) }
        set { self.stopped.store(newValue, ordering: .relaxed) }
    }

    /// The highest revision acknowledged, or seen after a restart.
    var revision: Int64 { self.state.withLock { $0.revision } }
    /// How many writes were acknowledged in all.
    var acknowledged: Int { self.state.withLock { $0.acknowledged } }

    /// The next value to send to `key`: above every value sent so far.
    func nextValue(for key: String) -> Int64 {
        self.state.withLock { state in
            let entry = state.keys[key, default: Key()]
            return max(entry.settled, entry.unknown.max() ?? 0) + 1
        }
    }

    func sending(_ value: Int64, to key: String) {
        self.state.withLock { _ = $0.keys[key, default: Key()].unknown.insert(value) }
    }

    func acknowledged(_ value: Int64, of key: String, revision: Int64) {
        self.state.withLock {
            $0.keys[key] = Key(settled: value)
            $0.revision = max($0.revision, revision)
            $0.acknowledged += 1
        }
    }

    /// Checks a value read after a restart: the last acknowledged one, or one sent later; it then becomes the value
    /// later restarts are held to. Returns a problem, or `nil`.
    func check(_ value: Int64, of key: String) -> String? {
        self.state.withLock { state in
            let entry = state.keys[key, default: Key()]
            guard value == entry.settled || (entry.unknown.contains(value) && value > entry.settled) else {
                return "\(key) is \(value) after a restart, but \(entry.settled) was acknowledged "
                    + "(later unanswered values: \(entry.unknown.sorted()))"
            }
            state.keys[key] = Key(settled: value)
            return nil
        }
    }

    /// Checks a module revision read after a restart; it then becomes the floor. Returns a problem, or `nil`.
    func check(revision: Int64) -> String? {
        self.state.withLock { state in
            guard revision >= state.revision else {
                return "the revision went back to \(revision) after a restart, \(state.revision) was acknowledged"
            }
            state.revision = revision
            return nil
        }
    }
}
