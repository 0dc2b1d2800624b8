import Foundation
import Glibc

/// A datagram socket standing in for systemd's `NOTIFY_SOCKET`: collects what the daemon sends with sd_notify.
final class NotifySocket: @unchecked Sendable {
    let path: String
    private let descriptor: Int32

    init(directory: URL) throws {
        self.path = directory.appendingPathComponent("notify.sock").path
        self.descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard self.descriptor >= 0 else { throw HarnessError("socket: errno \(errno)") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in self.path.utf8.enumerated() { raw[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(self.descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0 else { throw HarnessError("bind \(self.path): errno \(errno)") }
    }

    deinit { close(self.descriptor) }

    /// The next datagram, or `nil` when none arrives within `timeout` seconds.
    func receive(timeout: Double) -> String? {
        var poller = pollfd(fd: self.descriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, Int32(timeout * 1000)) == 1 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = recv(self.descriptor, &buffer, buffer.count, 0)
        guard count > 0 else { return nil }
        return String(decoding: buffer[0..<count], as: UTF8.self)
    }

    /// Waits for a datagram containing `assignment` (e.g. `READY=1`), returning every datagram seen until then.
    func wait(for assignment: String, timeout: Double = 20) -> [String]? {
        var seen: [String] = []
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            guard let message = self.receive(timeout: deadline.timeIntervalSinceNow) else { break }
            seen.append(message)
            if message.split(separator: "\n").contains(Substring(assignment)) { return seen }
        }
        return nil
    }
}
