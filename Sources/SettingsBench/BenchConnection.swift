#if canImport(Glibc)
import Glibc
#endif

/// One blocking client connection to a Unix socket, sending a request and reading its whole reply before the
/// next (no pipelining), as a simple client does.
final class BenchConnection {
    private let descriptor: Int32
    private let wire: BenchProtocol
    private var buffer: [UInt8]
    private var filled = 0

    /// Connects to the Unix socket at `path`.
    init(path: String, wire: BenchProtocol) throws(BenchError) {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw .system("socket", errno) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let pathBytes = Array(path.utf8)
        guard pathBytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            close(descriptor)
            throw .socketPathTooLong(path)
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: pathBytes)
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else {
            let code = errno
            close(descriptor)
            throw .cannotConnect(path, code)
        }
        self.descriptor = descriptor
        self.wire = wire
        self.buffer = [UInt8](repeating: 0, count: 64 * 1024)
    }

    deinit {
        close(self.descriptor)
    }

    /// Sends `request` and waits for its reply; returns whether the reply was a success.
    func roundTrip(_ request: [UInt8]) throws(BenchError) -> Bool {
        try self.send(request)
        return try self.receiveReply()
    }

    private func send(_ request: [UInt8]) throws(BenchError) {
        var sent = 0
        while sent < request.count {
            let count = request.withUnsafeBytes { raw in
                Glibc.send(self.descriptor, raw.baseAddress! + sent, raw.count - sent, Int32(MSG_NOSIGNAL))
            }
            if count < 0 {
                if errno == EINTR { continue }
                throw .system("send", errno)
            }
            sent += count
        }
    }

    /// Reads until one whole reply is in the buffer, then drops it (keeping any bytes after it).
    private func receiveReply() throws(BenchError) -> Bool {
        while true {
            let found = self.buffer.withUnsafeBufferPointer { bytes -> (end: Int, error: Bool)? in
                let filled = UnsafeBufferPointer(rebasing: bytes[0..<self.filled])
                guard let end = self.wire.replyEnd(in: filled) else { return nil }
                return (end, self.wire.isError(UnsafeBufferPointer(rebasing: filled[0..<end])))
            }
            if let found {
                let rest = self.filled - found.end
                if rest > 0 {
                    self.buffer.withUnsafeMutableBufferPointer { bytes in
                        _ = memmove(bytes.baseAddress!, bytes.baseAddress! + found.end, rest)
                    }
                }
                self.filled = rest
                return !found.error
            }
            if self.filled == self.buffer.count {
                self.buffer.append(contentsOf: [UInt8](repeating: 0, count: self.buffer.count))
            }
            let count = self.buffer.withUnsafeMutableBytes { raw in
                recv(self.descriptor, raw.baseAddress! + self.filled, raw.count - self.filled, 0)
            }
            if count < 0 {
                if errno == EINTR { continue }
                throw .system("recv", errno)
            }
            if count == 0 { throw .closedByServer }
            self.filled += count
        }
    }
}
