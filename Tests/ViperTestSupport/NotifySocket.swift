import Dispatch
public import Foundation
import Glibc

/// A datagram socket standing in for systemd's notification socket (`NOTIFY_SOCKET`).
///
/// It receives the sender's credentials (`SO_PASSCRED`) and keeps only the messages sent by `sender`, so that
/// programs other test suites start meanwhile, which inherit the environment, cannot add to what a test reads.
public final class NotifySocket: Sendable {
    /// The socket's path, the value for `NOTIFY_SOCKET`.
    public let path: String
    private let descriptor: Int32
    private let sender: pid_t?
    private let queue = DispatchQueue(label: "NotifySocket.receive")

    /// Binds a socket at `path` (a fresh one in /tmp by default) that keeps messages from `sender` (`nil`: any).
    public init(path: String? = nil, sender: pid_t? = getpid()) throws {
        self.path = path ?? "/tmp/viper-notify-\(getpid())-\(UInt64.random(in: 0...UInt64.max)).sock"
        self.sender = sender
        self.descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard self.descriptor >= 0 else {
            throw SystemCallError(operation: "socket", code: errno)
        }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let pathBytes = Array(self.path.utf8)
        precondition(pathBytes.count < MemoryLayout.size(ofValue: address.sun_path), "socket path too long")
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: pathBytes) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(self.descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        var on: Int32 = 1
        guard bound == 0,
            setsockopt(self.descriptor, SOL_SOCKET, SO_PASSCRED, &on, socklen_t(MemoryLayout<Int32>.size)) == 0
        else {
            let code = errno
            close(self.descriptor)
            throw SystemCallError(operation: "bind", code: code)
        }
    }

    deinit {
        close(self.descriptor)
        unlink(self.path)
    }

    /// The messages already queued, oldest first, without waiting.
    public func drain() -> [String] {
        var messages: [String] = []
        while let message = self.receive(flags: Int32(MSG_DONTWAIT)) {
            messages.append(message)
        }
        return messages
    }

    /// The next message, waiting at most `timeout` for it (a blocking receive off the cooperative thread pool).
    public func next(timeout: Duration) async -> String? {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        return await withCheckedContinuation { continuation in
            self.queue.async {
                while true {
                    let left = ContinuousClock.now.duration(to: deadline)
                    guard left > .zero else {
                        return continuation.resume(returning: nil)
                    }
                    let (seconds, attoseconds) = left.components
                    var timeout = timeval(tv_sec: Int(seconds), tv_usec: Int(max(attoseconds / 1_000_000_000_000, 1)))
                    setsockopt(
                        self.descriptor,
                        SOL_SOCKET,
                        SO_RCVTIMEO,
                        &timeout,
                        socklen_t(MemoryLayout<timeval>.size)
                    )
                    if let message = self.receive(flags: 0) {
                        return continuation.resume(returning: message)
                    }
                }
            }
        }
    }

    /// A socket in `directory` that keeps messages from any process: for a daemon the test starts.
    public convenience init(directory: URL) throws {
        try self.init(path: directory.appendingPathComponent("notify.sock").path, sender: nil)
    }

    /// The next message, or `nil` when none arrives within `timeout` seconds; blocks the calling thread.
    public func receive(timeout: Double) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { return nil }
            var poller = pollfd(fd: self.descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, Int32(min(left, 3600) * 1000)) == 1 else { continue }
            if let message = self.receive(flags: Int32(MSG_DONTWAIT)) { return message }
        }
    }

    /// Waits for a message containing `assignment` (e.g. `READY=1`), returning every message seen until then, or
    /// `nil` when none came within `timeout` seconds; blocks the calling thread.
    public func wait(for assignment: String, timeout: Double = 60) -> [String]? {
        var seen: [String] = []
        let deadline = Date().addingTimeInterval(timeout)
        while let message = self.receive(timeout: deadline.timeIntervalSinceNow) {
            seen.append(message)
            if message.split(separator: "\n").contains(Substring(assignment)) { return seen }
        }
        return nil
    }

    /// Waits (at most `timeout` seconds) for a message that `matches`; returns it, or `nil` when none came.
    public func wait(timeout: Double = 60, until matches: (String) -> Bool) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        while let message = self.receive(timeout: deadline.timeIntervalSinceNow) {
            if matches(message) { return message }
        }
        return nil
    }

    /// One message from the sender, or `nil` when none is there (or the receive timed out).
    private func receive(flags: Int32) -> String? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        var control = [UInt8](repeating: 0, count: 64)
        while true {
            var sender: pid_t?
            let count = buffer.withUnsafeMutableBytes { data in
                control.withUnsafeMutableBytes { controlBytes in
                    var vector = iovec(iov_base: data.baseAddress, iov_len: data.count)
                    return withUnsafeMutablePointer(to: &vector) { vectorPointer in
                        var header = msghdr()
                        header.msg_iov = vectorPointer
                        header.msg_iovlen = 1
                        header.msg_control = controlBytes.baseAddress
                        header.msg_controllen = controlBytes.count
                        let count = recvmsg(self.descriptor, &header, flags)
                        sender = Self.sender(in: controlBytes, length: Int(header.msg_controllen))
                        return count
                    }
                }
            }
            guard count >= 0 else {
                return nil
            }
            if let expected = self.sender, sender != expected {
                continue
            }
            return String(decoding: buffer[..<count], as: UTF8.self)
        }
    }

    /// The sender's pid from the `SCM_CREDENTIALS` of a received message's control data: a `struct ucred`
    /// (`pid`, `uid`, `gid`) after the `cmsghdr`. Glibc's module exports neither without `_GNU_SOURCE`.
    private static func sender(in control: UnsafeMutableRawBufferPointer, length: Int) -> pid_t? {
        let headerSize = MemoryLayout<cmsghdr>.stride
        let credentialsType: Int32 = 2  // SCM_CREDENTIALS
        guard length >= headerSize + 3 * MemoryLayout<Int32>.size else {
            return nil
        }
        let header = control.load(as: cmsghdr.self)
        guard header.cmsg_level == SOL_SOCKET, header.cmsg_type == credentialsType else {
            return nil
        }
        return control.loadUnaligned(fromByteOffset: headerSize, as: pid_t.self)
    }
}
