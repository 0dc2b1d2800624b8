import Synchronization

/// A counter shared with a source's callbacks.
final class EtcdCounter: Sendable {
    private let count = Mutex(0)

    /// Adds one and returns the value before.
    @discardableResult
    func increment() -> Int {
        self.count.withLock { value in
            defer { value += 1 }
            return value
        }
    }

    /// The current value.
    var value: Int { self.count.withLock { $0 } }
}
