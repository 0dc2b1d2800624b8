import Logging
import NIOCore
import Synchronization

/// Turns away a connection over a limit with an error reply that names the limit, instead of a bare close (which
/// a client that already sent its call sees as "connection reset").
///
/// The refused connection's first call that expects a reply is read (for at most ``wait``; `oneway` calls before it
/// get no reply at all), answered with the error, and the connection is closed. A few refusals wait for a call at
/// once; beyond the server's `refusalsWaiting` the error is written as soon as the connection is accepted, before any call is
/// read, and the connection closed, so that refusing costs no more descriptors than that: a client that already
/// sent its call reads the error as its reply (the kernel keeps what was written before the close readable), one
/// that sends its call after the close finds the error waiting when its write fails (settingsctl reads it then).
struct VarlinkConnectionRefusal: Sendable {
    /// The error reply: its name (declared by the served interface), the limit and its value.
    let error: VarlinkError
    /// The longest wait for the client's first call.
    let wait: TimeAmount
    /// The refusals of the server that wait for a call.
    let waiting: Waiting
    /// The logger with the client's metadata.
    let logger: Logger

    /// Counts the refusals of one server that wait for a call, up to a maximum.
    final class Waiting: Sendable {
        private let count = Atomic<Int>(0)
        /// The most refusals that wait for a call at once.
        let maximum: Int

        init(maximum: Int) {
            self.maximum = maximum
        }

        /// Counts one more; whether it may wait (it is counted either way: ``leave()`` it).
        func enter() -> Bool {
            self.count.add(1, ordering: .relaxed).newValue <= self.maximum
        }

        func leave() {
            self.count.subtract(1, ordering: .relaxed)
        }
    }
    /// The most `oneway` calls read past to find a call to answer with the error.
    static let onewayCallsReadPast = 16

    /// Answers the first call with the error, then closes the connection.
    func run(on connection: VarlinkConnectionChannel) async {
        let admitted = self.waiting.enter()
        defer { self.waiting.leave() }
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
            } else {
                try await connection.write(VarlinkReply(error: self.error).encoded())
            }
        } catch {
            self.logger.debug("Could not send the connection limit error", metadata: ["error": "\(error)"])
        }
        await connection.close()
    }
}
