import Logging
import NIOCore
import Synchronization

/// Whether a connection is idle or busy with a call, to close it when it idles too long or when the server
/// shuts down gracefully (right away if idle, after the call in progress otherwise).
final class VarlinkConnectionActivity: Sendable {
    private enum Phase {
        /// Waiting for the next call; the idle timer, if any, closes the connection when it fires.
        case idle(Scheduled<Void>?)
        /// Handling a call.
        case busy
        /// Shutting down: no further calls.
        case closing
    }

    private let channel: any Channel
    private let idleTimeout: TimeAmount?
    private let logger: Logger
    private let phase = Mutex(Phase.busy)

    init(channel: any Channel, idleTimeout: Duration?, logger: Logger) {
        self.channel = channel
        self.idleTimeout = idleTimeout.map { TimeAmount($0) }
        self.logger = logger
    }

    /// The connection now waits for a call. Returns false if it should close instead.
    func becomeIdle() -> Bool {
        self.phase.withLock { phase in
            if case .closing = phase { return false }
            // Idle already (a call answered on the event loop, then the connection's task looping): one timer.
            if case .idle(let timer) = phase { timer?.cancel() }
            phase = .idle(self.idleTimeout.map(self.scheduleIdleClose))
            return true
        }
    }

    /// A call arrived. Returns false if the connection should close instead of handling it.
    func beginCall() -> Bool {
        self.phase.withLock { phase in
            switch phase {
            case .closing:
                return false
            case .idle(let timer):
                timer?.cancel()
                phase = .busy
                return true
            case .busy:
                return true
            }
        }
    }

    /// A call is to be answered on the event loop: only while the connection's task waits for its next call (it
    /// is not busy with one, a `oneway` one included), so that calls never overlap. Returns whether to answer it.
    func beginImmediateCall() -> Bool {
        self.phase.withLock { phase in
            guard case .idle(let timer) = phase else { return false }
            timer?.cancel()
            phase = .busy
            return true
        }
    }

    /// The server shuts down gracefully: closes the connection now if idle, else after the call in progress.
    func shutDown() {
        let wasIdle = self.phase.withLock { phase in
            defer { phase = .closing }
            guard case .idle(let timer) = phase else { return false }
            timer?.cancel()
            return true
        }
        if wasIdle {
            self.channel.close(promise: nil)
        }
    }

    private func scheduleIdleClose(after timeout: TimeAmount) -> Scheduled<Void> {
        let channel = self.channel
        let logger = self.logger
        return channel.eventLoop.scheduleTask(in: timeout) {
            logger.debug("Closing idle Varlink connection")
            channel.close(promise: nil)
        }
    }
}
