import Synchronization
import ViperSettings

/// The durable state of every loaded module, readable from any thread without entering the repository actor: what
/// ``JSONFileRepository/state(of:)`` returns, for reads answered on the spot.
final class PublishedStates: Sendable {
    private let states = Mutex<[String: ModuleState]>([:])

    /// Makes `state` the durable state of `module`.
    func publish(_ module: String, _ state: ModuleState) {
        self.states.withLock { $0[module] = state }
    }

    /// The durable state of `module`, if it is loaded.
    func state(of module: String) -> ModuleState? {
        self.states.withLock { $0[module] }
    }
}
