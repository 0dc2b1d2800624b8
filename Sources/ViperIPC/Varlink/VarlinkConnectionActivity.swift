import Logging
import NIOCore
import Synchronization

/// Whether a connection is idle or busy with a call, to close it when it idles too long or when the server
/// shuts down gracefully: after the call in progress, or when the drain timeout passes first (a client that never
/// reads its reply must not hold the shutdown); an idle one after a short grace in which a call it already sent (in
/// the socket's buffer, not read yet) is still answered, rather than reset.
///
/// One timer per connection, not one per call: a call only records when the connection became idle again, and the
/// timer, when it fires, closes the connection if it has been idle for the whole timeout, or waits for the rest.
final class VarlinkConnectionActivity: Sendable {
    private enum Phase {
        /// Accepted; the connection's task has not waited for a call yet.
        case starting
        /// Waiting for the next call since the given time.
        case idle(since: NIODeadline)
        /// Handling a call.
        case busy
        /// Shutting down while idle: a call that arrives within the grace is answered, and is the last.
        case draining
        /// Shutting down: no further calls.
        case closing
    }

    /// How long a connection idle at shutdown waits for a call its client already sent.
    static let shutdownGrace = TimeAmount.milliseconds(100)

    private struct State {
        var phase = Phase.starting
        /// The pending idle check, or the drain deadline once shutting down, if any.
        var timer: Scheduled<Void>?
        /// The connection is gone: nothing more to schedule.
        var ended = false

        /// A call sent before the shutdown arrived in its grace: it is the last, and the grace's timer is done.
        mutating func takeLastCall() {
            self.phase = .closing
            self.timer?.cancel()
            self.timer = nil
        }
    }

    private let channel: any Channel
    private let idleTimeout: TimeAmount?
    private let drainTimeout: TimeAmount
    private let logger: Logger
    private let state = Mutex(State())

    init(channel: any Channel, idleTimeout: Duration?, drainTimeout: Duration = .seconds(5), logger: Logger) {
        self.channel = channel
        self.idleTimeout = idleTimeout.map { TimeAmount($0) }
        self.drainTimeout = TimeAmount(drainTimeout)
        self.logger = logger
    }

    /// The connection now waits for a call. Returns false if it should close instead.
    func becomeIdle() -> Bool {
        self.state.withLock { state in
            switch state.phase {
            case .closing: return false
            case .draining: return true  // waits for the call already sent, if any, until the grace ends
            default: break
            }
            let now = self.channel.eventLoop.now
            state.phase = .idle(since: now)
            if state.timer == nil, let timeout = self.idleTimeout {
                state.timer = self.scheduleCheck(at: now + timeout)
            }
            return true
        }
    }

    /// A call arrived. Returns false if the connection should close instead of handling it.
    func beginCall() -> Bool {
        let last = self.state.withLock { state -> Bool? in
            switch state.phase {
            case .closing: return nil
            case .draining:
                // Sent before the shutdown: answered, and the last (the drain timeout, not the grace, bounds it).
                state.takeLastCall()
                return true
            default:
                state.phase = .busy
                return false
            }
        }
        guard let last else { return false }
        if last { self.scheduleDrainDeadline() }
        return true
    }

    /// A call is to be answered on the event loop: only while the connection's task waits for its next call (it
    /// is not busy with one, a `oneway` one included), so that calls never overlap. Returns whether to answer it.
    func beginImmediateCall() -> Bool {
        self.state.withLock { state in
            switch state.phase {
            case .idle:
                state.phase = .busy
                return true
            case .draining:
                // Sent before the shutdown: answered, then the connection closes (endImmediateCall).
                state.takeLastCall()
                return true
            default:
                return false
            }
        }
    }

    /// A call answered on the event loop is done: the connection is idle again. If the server started shutting
    /// down meanwhile (it found the connection busy, so left closing it to the end of the call), closes it now:
    /// the connection's task is waiting for a call and would never see that it should stop.
    func endImmediateCall() {
        if !self.becomeIdle() {
            self.logger.debug("Closing Varlink connection after its last call: the server is shutting down")
            self.channel.close(promise: nil)
        }
    }

    /// The server shuts down gracefully: closes the connection after the call in progress, or once the drain
    /// timeout has passed, whichever comes first; an idle one after ``shutdownGrace``, unless a call its client
    /// already sent arrives meanwhile (then after that call).
    func shutDown() {
        let draining = self.state.withLock { state -> Bool in
            switch state.phase {
            case .starting, .idle:
                state.phase = .draining
                state.timer?.cancel()
                state.timer = self.channel.eventLoop.scheduleTask(in: Self.shutdownGrace) { [weak self] in
                    self?.graceEnded()
                }
                return true
            case .draining, .closing:
                return true
            case .busy:
                return false
            }
        }
        if draining { return }
        _ = self.stop()
        self.scheduleDrainDeadline()
    }

    /// The grace of a connection idle at shutdown is over: closed, unless a call arrived meanwhile.
    private func graceEnded() {
        let close = self.state.withLock { state -> Bool in
            state.timer = nil
            guard case .draining = state.phase else { return false }
            state.phase = .closing
            return true
        }
        if close { self.channel.close(promise: nil) }
    }

    /// Closes the connection when its call has not finished within the drain timeout.
    private func scheduleDrainDeadline() {
        let drainTimeout = self.drainTimeout
        let deadline = self.channel.eventLoop.scheduleTask(in: drainTimeout) { [weak self] in
            guard let self, self.channel.isActive else { return }
            self.logger.notice(
                "Closing Varlink connection: its call did not finish within the shutdown's drain timeout",
                metadata: ["drain_timeout": "\(drainTimeout.nanoseconds / 1_000_000) ms"]
            )
            self.channel.close(promise: nil)
        }
        // Cancelled by end() when the call finishes first.
        let late = self.state.withLock { state -> Scheduled<Void>? in
            guard state.timer == nil, !state.ended else { return deadline }
            state.timer = deadline
            return nil
        }
        late?.cancel()
    }

    /// The connection is gone: no further calls, and its idle check is cancelled, so that the event loop does not
    /// keep a timer per closed connection until its timeout would have passed (a client run in a shell loop leaves
    /// thousands).
    func end() {
        _ = self.stop()
        self.state.withLock { $0.ended = true }
    }

    /// Lets no further call begin and cancels the idle check (or the shutdown's grace); returns whether the
    /// connection was waiting for a call.
    private func stop() -> Bool {
        self.state.withLock { state in
            defer {
                state.phase = .closing
                state.timer?.cancel()
                state.timer = nil
            }
            switch state.phase {
            case .idle, .draining, .starting: return true
            case .busy, .closing: return false
            }
        }
    }

    /// The pending idle check, if one is scheduled.
    var pendingIdleCheck: Scheduled<Void>? { self.state.withLock { $0.timer } }

    /// The idle check: closes the connection if it has been idle for the whole timeout, else checks again when it
    /// would have been (a busy connection is checked again once it is idle).
    private func check() {
        guard let timeout = self.idleTimeout else { return }
        let close = self.state.withLock { state -> Bool in
            state.timer = nil
            guard case .idle(let since) = state.phase else { return false }
            let deadline = since + timeout
            if self.channel.eventLoop.now >= deadline { return true }
            state.timer = self.scheduleCheck(at: deadline)
            return false
        }
        if close {
            self.logger.debug("Closing idle Varlink connection")
            self.channel.close(promise: nil)
        }
    }

    private func scheduleCheck(at deadline: NIODeadline) -> Scheduled<Void> {
        self.channel.eventLoop.scheduleTask(deadline: deadline) { [weak self] in
            self?.check()
        }
    }
}
