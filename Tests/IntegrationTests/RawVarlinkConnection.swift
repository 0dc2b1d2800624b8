import Foundation

/// A plain blocking Unix socket connection to the daemon, for tests that hold many connections or send nothing.
final class RawVarlinkConnection {
    private let descriptor: Int32
    private var pending: [UInt8] = []

    /// Connects to `path`; reads wait at most `timeout` seconds.
    init(path: String, timeout: Int = 60) throws {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw HarnessError("socket: errno \(errno)") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.utf8.prefix(raw.count - 1).enumerated() { raw[index] = byte }
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) == 0
            }
        }
        var wait = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        guard connected else {
            close(descriptor)
            throw HarnessError("connect to \(path): errno \(errno)")
        }
        self.descriptor = descriptor
    }

    deinit { close(self.descriptor) }

    /// Sends one message (a NUL is appended).
    func send(_ json: String) throws {
        let bytes = Array(json.utf8) + [0]
        guard Foundation.send(self.descriptor, bytes, bytes.count, Int32(MSG_NOSIGNAL)) == bytes.count else {
            throw HarnessError("send: errno \(errno)")
        }
    }

    /// The next message, or `nil` when the daemon closed the connection. Throws when nothing came within the
    /// timeout, or on a reset.
    func read() throws -> [String: Any]? {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while !self.pending.contains(0) {
            let count = recv(self.descriptor, &buffer, buffer.count, 0)
            if count == 0 { return nil }
            guard count > 0 else { throw HarnessError("recv: errno \(errno)") }
            self.pending += buffer[..<count]
        }
        let end = self.pending.firstIndex(of: 0)!
        let message = Data(self.pending[..<end])
        self.pending.removeFirst(end + 1)
        return try JSONSerialization.jsonObject(with: message) as? [String: Any]
    }

    /// Calls `method` and returns its reply.
    func call(_ method: String, _ parameters: String = "{}") throws -> [String: Any]? {
        try self.send(#"{"method": "\#(method)", "parameters": \#(parameters)}"#)
        return try self.read()
    }
}
