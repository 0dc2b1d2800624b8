import Synchronization

/// Whether one apply of a target may still replace its destination.
///
/// The Interactor withdraws it when the target is removed (or refused, or given another destination) by a reload of
/// the targets (SIGHUP) while the apply runs: once the applier has said that the file is no longer updated, nothing
/// may be written to it. The destination is replaced while the permit is held (``FileApplier``), so a withdrawal
/// comes either before the replacement, which then never happens, or after it: the file was replaced before the
/// removal was announced, and ``withdraw()`` says which.
public final class ApplyPermit: Sendable {
    private enum State {
        /// Nothing replaced yet; it may be.
        case granted
        /// Withdrawn before anything was replaced: nothing will be.
        case withdrawn
        /// The destination was replaced under it.
        case used
    }

    private let state = Mutex(State.granted)

    public init() {}

    /// Whether it was withdrawn before the destination was replaced: the apply writes nothing.
    public var isWithdrawn: Bool {
        self.state.withLock { $0 == .withdrawn }
    }

    /// Withdraws it, waiting for a replacement made under it to end. Returns true when nothing was replaced (and
    /// nothing will be), false when the destination was replaced already.
    @discardableResult
    public func withdraw() -> Bool {
        self.state.withLock { state in
            if state == .granted { state = .withdrawn }
            return state == .withdrawn
        }
    }

    /// Runs `replace` unless the permit was withdrawn, holding it meanwhile so that it is not withdrawn halfway;
    /// returns false, without running it, when it was withdrawn.
    func whileGranted(_ replace: () throws(ApplyError) -> Void) throws(ApplyError) -> Bool {
        try self.state.withLock { state throws(ApplyError) -> Bool in
            guard state != .withdrawn else { return false }
            try replace()
            state = .used
            return true
        }
    }
}
