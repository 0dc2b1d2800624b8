import NIOCore
import Synchronization

/// A served connection as its task sees it: the calls the pipeline parsed, one after another, and a way to write
/// reply frames. Fed by its ``VarlinkConnectionHandler`` at the end of the pipeline.
///
/// It does what NIO's `NIOAsyncChannel` did here, with less work per call: a call is handed straight to the
/// waiting task, and a reply written from the channel's event loop goes down the pipeline at once.
/// - Calls are read only while few are waiting to be served (``highWatermark``) and the client reads its replies
///   (the connection is writable): a client that sends calls faster than they are answered, or does not read the
///   replies, is no longer read, so nothing piles up.
/// - A reply waits, after it is written, until the client reads enough of the replies before it for the
///   connection to be writable again: the task of a client that does not read stops there, and reads no more calls.
/// - Dropped without being served (accepted while the server stops), it closes the connection.
final class VarlinkConnectionChannel: Sendable {
    private enum End {
        /// The client sent everything (closed, or shut down its sending side).
        case closed
        /// Reading failed, e.g. a message over the size limit.
        case failed(any Error)
    }

    private struct State {
        var calls = CircularBuffer<VarlinkRequest>(initialCapacity: 4)
        var end: End?
        /// The task waiting for a call.
        var reader: UnsafeContinuation<VarlinkRequest?, any Error>?
        /// A read the pipeline asked for and the handler held back while enough calls wait.
        var readHeldBack = false
        var writable = true
        var inactive = false
        /// The task waiting for the connection to become writable.
        var writer: UnsafeContinuation<Void, any Error>?
    }

    /// The most calls read ahead of the one being served.
    static let highWatermark = 8

    /// The connection.
    let channel: any Channel
    private let state = Mutex(State())

    /// Wraps `channel`; ``handler()`` must be added at the end of its pipeline.
    init(channel: any Channel) {
        self.channel = channel
    }

    deinit {
        self.channel.close(promise: nil)
    }

    /// The handler that feeds this connection: the last in the pipeline.
    func handler() -> VarlinkConnectionHandler {
        VarlinkConnectionHandler(connection: self)
    }

    /// The next call, or `nil` once the client sent everything or the task is cancelled.
    ///
    /// - Throws: The error that ended reading, such as ``VarlinkFrameTooLargeError``, after the calls read before it.
    func next() async throws -> VarlinkRequest? {
        let (call, resumeReading) = try self.state.withLock { state throws -> (VarlinkRequest??, Bool) in
            if let call = state.calls.popFirst() {
                return (call, Self.takeHeldBackRead(&state))
            }
            switch state.end {
            case .closed: return (.some(nil), false)
            case .failed(let error): throw error
            case nil: return (nil, false)
            }
        }
        if resumeReading { self.channel.read() }
        if let call { return call }
        return try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { continuation in
                var resumeReading = false
                let ready = self.state.withLock { state -> Result<VarlinkRequest?, any Error>? in
                    if let call = state.calls.popFirst() {
                        resumeReading = Self.takeHeldBackRead(&state)
                        return .success(call)
                    }
                    switch state.end {
                    case .closed: return .success(nil)
                    case .failed(let error): return .failure(error)
                    case nil: break
                    }
                    if Task.isCancelled { return .success(nil) }
                    state.reader = continuation
                    return nil
                }
                if let ready { continuation.resume(with: ready) }
                if resumeReading { self.channel.read() }
            }
        } onCancel: {
            self.state.withLock { state in
                defer { state.reader = nil }
                return state.reader
            }?.resume(returning: nil)
        }
    }

    /// Writes a whole reply frame, then waits until the connection is writable again.
    ///
    /// - Throws: `ChannelError.ioOnClosedChannel` once the connection is closed; `CancellationError` when the task
    ///   is cancelled while the client does not read.
    func write(_ frame: ByteBuffer) async throws {
        guard !self.state.withLock({ $0.inactive }) else { throw ChannelError.ioOnClosedChannel }
        self.channel.writeAndFlush(frame, promise: nil)
        guard !self.state.withLock({ $0.writable }) else { return }
        try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<Void, any Error>) in
                let ready = self.state.withLock { state -> Result<Void, any Error>? in
                    if state.inactive { return .failure(ChannelError.ioOnClosedChannel) }
                    if state.writable { return .success(()) }
                    if Task.isCancelled { return .failure(CancellationError()) }
                    state.writer = continuation
                    return nil
                }
                if let ready { continuation.resume(with: ready) }
            }
        } onCancel: {
            self.state.withLock { state in
                defer { state.writer = nil }
                return state.writer
            }?.resume(throwing: CancellationError())
        }
    }

    /// Closes the connection and waits until it is closed.
    func close() async {
        try? await self.channel.close()
    }

    // MARK: Events from the handler, on the event loop

    /// A call was read: handed to the waiting task, or kept for it.
    func received(_ call: VarlinkRequest) {
        let reader = self.state.withLock { state -> UnsafeContinuation<VarlinkRequest?, any Error>? in
            guard let reader = state.reader else {
                state.calls.append(call)
                return nil
            }
            state.reader = nil
            return reader
        }
        reader?.resume(returning: call)
    }

    /// Whether the pipeline may read now: not while enough calls wait, nor while the client leaves its replies unread
    /// (the connection is not writable: calls read then would only pile up, with their replies). If not, the read
    /// is held back until the task takes calls and the connection is writable.
    func mayRead() -> Bool {
        self.state.withLock { state in
            guard state.calls.count >= Self.highWatermark || !state.writable else { return true }
            state.readHeldBack = true
            return false
        }
    }

    /// Reading ended: the waiting task gets `nil` (or the error) once it has taken the calls read before.
    func readingEnded(_ end: Result<Void, any Error>) {
        let reader = self.state.withLock { state -> UnsafeContinuation<VarlinkRequest?, any Error>? in
            guard state.end == nil else { return nil }
            switch end {
            case .success: state.end = .closed
            case .failure(let error): state.end = .failed(error)
            }
            defer { state.reader = nil }
            return state.reader
        }
        switch end {
        case .success: reader?.resume(returning: nil)
        case .failure(let error): reader?.resume(throwing: error)
        }
    }

    /// The connection became writable or not.
    func writabilityChanged(_ writable: Bool) {
        var resumeReading = false
        let writer = self.state.withLock { state -> UnsafeContinuation<Void, any Error>? in
            state.writable = writable
            guard writable else { return nil }
            resumeReading = Self.takeHeldBackRead(&state)
            defer { state.writer = nil }
            return state.writer
        }
        writer?.resume()
        if resumeReading { self.channel.read() }
    }

    /// The connection closed: reading ends, and a waiting write fails.
    func becameInactive() {
        self.readingEnded(.success(()))
        let writer = self.state.withLock { state -> UnsafeContinuation<Void, any Error>? in
            state.inactive = true
            defer { state.writer = nil }
            return state.writer
        }
        writer?.resume(throwing: ChannelError.ioOnClosedChannel)
    }

    /// Whether a held-back read is to be resumed now (few calls wait again, and the client reads its replies).
    private static func takeHeldBackRead(_ state: inout State) -> Bool {
        guard state.readHeldBack, state.writable, state.calls.count < Self.highWatermark / 2 else { return false }
        state.readHeldBack = false
        return true
    }
}
