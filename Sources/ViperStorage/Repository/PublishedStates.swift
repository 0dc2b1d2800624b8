import Synchronization
import ViperSettings

/// The durable state of every loaded module, readable from any thread without entering the repository actor: what
/// ``JSONFileRepository/state(of:)`` returns, for reads answered on the spot.
final class PublishedStates: Sendable {
    private struct Published {
        var states: [String: ModuleState] = [:]
        var generation: UInt64 = 0
    }

    private let published = Mutex(Published())

    /// Makes `state` the durable state of `module`.
    func publish(_ module: String, _ state: ModuleState) {
        self.published.withLock { published in
            published.states[module] = state
            // Counted after the state is in place: a reader that saw the old count may have read either state,
            // and anything it keeps under that count is taken as outdated.
            published.generation &+= 1
        }
    }

    /// The durable state of `module`, if it is loaded.
    func state(of module: String) -> ModuleState? {
        self.published.withLock { $0.states[module] }
    }

    /// A number that grows with every state published, of any module.
    var generation: UInt64 {
        self.published.withLock { $0.generation }
    }
}
