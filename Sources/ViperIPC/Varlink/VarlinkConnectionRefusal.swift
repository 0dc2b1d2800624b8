import Logging
import NIOCore
import Synchronization

/// Turns away a connection over a limit with an error reply that names the limit, instead of a bare close (which
/// a client that already sent its call sees as "connection reset").
///
/// The refused connection's first call that expects a reply is read (for at most ``wait``; `oneway` calls before it
/// get no reply at all), answered with the error, and the connection is closed. A few refusals run at once; beyond ``maximumAtOnce`` a connection is closed at once, so that refusing
/// costs no more descriptors than that.
struct VarlinkConnectionRefusal: Sendable {
    /// The error reply: its name (declared by the served interface), the limit and its value.
    let error: VarlinkError
    /// The longest wait for the client's first call.
    let wait: TimeAmount
    /// The logger with the client's metadata.
    let logger: Logger

    /// Refusals in progress, across connections.
    static let inProgress = Atomic<Int>(0)
    /// The most refusals that wait for a call at once.
    static let maximumAtOnce = 64
    /// The most `oneway` calls read past to find a call to answer with the error.
    static let onewayCallsReadPast = 16

    /// Answers the first call with the error, then closes the connection.
    func run(on connection: VarlinkConnectionChannel) async {
        let admitted = Self.inProgress.add(1, ordering: .relaxed).newValue <= Self.maximumAtOnce
        defer { Self.inProgress.subtract(1, ordering: .relaxed) }
        do {
            if admitted {
                let raw = connection.channel
                let timer = raw.eventLoop.scheduleTask(in: self.wait) { raw.close(promise: nil) }
                defer { timer.cancel() }
                // The first call that expects a reply gets the error; a `oneway` call before it gets no reply, not
                // even this error (at most a few are read past).
                reading: for _ in 0..<Self.onewayCallsReadPast {
                    let oneway: Bool
                    switch try await connection.next() {
                    case .call(let call): oneway = call.oneway
                    case .invalid(_, let flag, _): oneway = flag
                    case .protocolViolation, nil: break reading  // nothing to answer
                    }
                    if !oneway {
                        try await connection.write(VarlinkReply(error: self.error).encoded())
                        break reading
                    }
                }
            }
        } catch {
            self.logger.debug("Could not send the connection limit error", metadata: ["error": "\(error)"])
        }
        await connection.close()
    }
}
