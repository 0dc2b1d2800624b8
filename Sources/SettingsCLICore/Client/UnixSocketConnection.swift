import Glibc
import ViperPOSIX

/// A blocking, connected `AF_UNIX` stream socket, closed when it goes away.
///
/// Writes are whole (short writes are continued) and never raise `SIGPIPE`; calls interrupted by a signal
/// are retried. The timeout bounds the whole exchange, not each system call: the connection is made at a
/// deadline (now plus the timeout) and every later wait (for room to write, for the next bytes of the reply)
/// waits only for the time left, so a peer that trickles its reply a byte at a time still times out.
package struct UnixSocketConnection: ~Copyable {
    /// Why a socket operation failed.
    package enum Failure: Error, Sendable, Hashable {
        /// The path does not fit in `sockaddr_un` (107 bytes at most).
        case pathTooLong
        /// `socket(2)` or `connect(2)` failed with this `errno`.
        case connect(Int32)
        /// `send(2)` or `recv(2)` failed with this `errno`.
        case transfer(Int32)
        /// The peer did not answer in time.
        case timedOut
        /// The peer closed the connection before the message was complete.
        case closed
        /// The message grew past the limit before its delimiter came.
        case tooLarge
        /// The descriptor watched for hang-up (standard output) was hung up: its reader is gone.
        case hungUp
    }

    private let descriptor: Int32
    /// When the exchange started plus the timeout: no send or receive waits past it.
    private let deadline: MonotonicDeadline

    /// Connects to the socket at `path`; connecting, sending and receiving together may take `timeoutSeconds`.
    package init(path: String, timeoutSeconds: Int) throws(Failure) {
        self.deadline = MonotonicDeadline(secondsFromNow: timeoutSeconds)
        var address = sockaddr_un()
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        let pathBytes = Array(path.utf8)
        guard pathBytes.count < capacity else { throw .pathTooLong }
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: pathBytes)
            raw[pathBytes.count] = 0
        }
        let length = socklen_t(MemoryLayout<sockaddr_un>.offset(of: \.sun_path)! + pathBytes.count + 1)

        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw .connect(errno) }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        let timeoutSize = socklen_t(MemoryLayout<timeval>.size)
        // Bounds a connect to a listener whose backlog is full; sends and receives wait in `poll`.
        _ = setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &timeout, timeoutSize)

        let result = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, length) }
        }
        if result != 0 {
            let code = errno == EINTR ? Self.awaitInterruptedConnect(descriptor, timeoutSeconds) : errno
            if code != 0 {
                Glibc.close(descriptor)
                throw code == EAGAIN || code == ETIMEDOUT ? .timedOut : .connect(code)
            }
        }
        self.descriptor = descriptor
    }

    deinit {
        Glibc.close(self.descriptor)
    }

    /// Closes the socket now. A failed `receive` is followed by this, so that the peer sees the hang-up at once.
    package consuming func close() {
        // Consuming `self` ends its lifetime here, which runs `deinit`.
    }

    /// Sends all of `bytes`, waiting for room (until the deadline) only when the socket has none.
    package func send(_ bytes: [UInt8]) throws(Failure) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { buffer in
                Glibc.send(
                    self.descriptor,
                    buffer.baseAddress! + offset,
                    buffer.count - offset,
                    Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT)
                )
            }
            if sent >= 0 {
                offset += sent
                continue
            }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: try self.waitUntilReady(for: POLLOUT, deadline: self.deadline)
            case let code: throw .transfer(code)
            }
        }
    }

    /// Receives bytes until `delimiter` and returns those before it; bytes after it are dropped.
    ///
    /// Fails with ``Failure/timedOut`` when the delimiter has not come by the deadline, however steadily bytes
    /// arrive, and with ``Failure/tooLarge`` as soon as more than `limit` bytes came without it.
    package func receive(until delimiter: UInt8, limit: Int) throws(Failure) -> [UInt8] {
        var message: [UInt8] = []
        message.reserveCapacity(16_384)
        let chunkSize = 65_536
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 1)
        defer { chunk.deallocate() }
        while true {
            try self.waitUntilReady(for: POLLIN, deadline: self.deadline)
            let received = recv(self.descriptor, chunk.baseAddress!, chunkSize, Int32(MSG_DONTWAIT))
            if received > 0 {
                let bytes = UnsafeRawBufferPointer(rebasing: chunk[0..<received])
                if let end = bytes.firstIndex(of: delimiter) {
                    message.append(contentsOf: bytes[0..<end])
                    guard message.count <= limit else { throw .tooLarge }
                    return message
                }
                message.append(contentsOf: bytes)
                guard message.count <= limit else { throw .tooLarge }
            } else if received == 0 {
                throw .closed
            } else {
                switch errno {
                case EINTR, EAGAIN, EWOULDBLOCK: continue
                case let code: throw .transfer(code)
                }
            }
        }
    }

    /// Receives a stream of messages, each ended by `delimiter`, and hands each (without it) to `body` until `body`
    /// returns false. Waits without a deadline: a stream may stay silent for as long as nothing happens.
    ///
    /// Fails with ``Failure/closed`` when the peer closes the connection, with ``Failure/tooLarge`` when one
    /// message grows past `limit`, and with ``Failure/hungUp`` as soon as `hangUp` (standard output, say) reports an
    /// error or hang-up, such as a pipe whose reader left (`watch | head -1`), rather than at the next write.
    package func receiveMessages(
        until delimiter: UInt8,
        limit: Int,
        hangUp: Int32? = nil,
        _ body: ([UInt8]) -> Bool
    ) throws(Failure) {
        var message: [UInt8] = []
        let chunkSize = 65_536
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 1)
        defer { chunk.deallocate() }
        while true {
            try self.waitUntilReadable(orHungUp: hangUp)
            let received = recv(self.descriptor, chunk.baseAddress!, chunkSize, Int32(MSG_DONTWAIT))
            if received > 0 {
                for byte in UnsafeRawBufferPointer(rebasing: chunk[0..<received]) {
                    if byte == delimiter {
                        guard body(message) else { return }
                        message.removeAll(keepingCapacity: true)
                    } else {
                        message.append(byte)
                        guard message.count <= limit else { throw .tooLarge }
                    }
                }
            } else if received == 0 {
                throw .closed
            } else {
                switch errno {
                case EINTR, EAGAIN, EWOULDBLOCK: continue
                case let code: throw .transfer(code)
                }
            }
        }
    }

    /// Waits without a deadline until the socket is readable (or has an error or hang-up to report); throws
    /// ``Failure/hungUp`` when `hangUp` reports an error or hang-up first.
    private func waitUntilReadable(orHungUp hangUp: Int32?) throws(Failure) {
        guard let hangUp else { return try self.waitUntilReady(for: POLLIN, deadline: nil) }
        var requests = [
            pollfd(fd: self.descriptor, events: Int16(POLLIN), revents: 0),
            // No event asked: only an error or a hang-up is reported (a file or a terminal reports neither).
            pollfd(fd: hangUp, events: 0, revents: 0),
        ]
        while true {
            let ready = poll(&requests, 2, -1)
            if ready > 0 {
                if requests[1].revents & Int16(POLLERR | POLLHUP) != 0 { throw .hungUp }
                return
            }
            if ready < 0 && errno != EINTR { throw .transfer(errno) }
        }
    }

    /// Waits until the socket is ready for `events` (or has an error or hang-up to report), at most until
    /// `deadline` (`nil`: no limit).
    private func waitUntilReady(for events: Int32, deadline: MonotonicDeadline?) throws(Failure) {
        var request = pollfd(fd: self.descriptor, events: Int16(events), revents: 0)
        guard let deadline else {
            while true {
                let ready = poll(&request, 1, -1)
                if ready > 0 { return }
                if ready < 0 && errno != EINTR { throw .transfer(errno) }
            }
        }
        while true {
            let milliseconds = deadline.millisecondsLeft
            guard milliseconds > 0 else { throw .timedOut }
            let ready = poll(&request, 1, Int32(clamping: milliseconds))
            if ready > 0 { return }
            if ready < 0 && errno != EINTR { throw .transfer(errno) }
        }
    }

    /// Waits for a connect that a signal interrupted to finish; returns its `errno`, 0 on success.
    private static func awaitInterruptedConnect(_ descriptor: Int32, _ timeoutSeconds: Int) -> Int32 {
        var request = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
        var ready: Int32
        repeat {
            ready = poll(&request, 1, Int32(clamping: timeoutSeconds * 1000))
        } while ready < 0 && errno == EINTR
        guard ready > 0 else { return ready == 0 ? ETIMEDOUT : errno }
        var code: Int32 = 0
        var size = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &code, &size) == 0 else { return errno }
        return code
    }
}
