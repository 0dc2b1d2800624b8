import Dispatch
import Synchronization

extension Array where Element: Sendable {
    /// `transform` of every element, worked out on every core and returned in order: for the files the daemon reads
    /// before it serves (schemas, their kept copies, state files), hundreds in a fleet's catalog.
    func concurrentMap<Result: Sendable>(_ transform: @Sendable (Element) -> Result) -> [Result] {
        let results = Mutex([Result?](repeating: nil, count: self.count))
        DispatchQueue.concurrentPerform(iterations: self.count) { index in
            let result = transform(self[index])
            results.withLock { $0[index] = result }
        }
        return results.withLock { $0.map { $0! } }
    }
}
