import Foundation
import Glibc
import Synchronization
import ViperTestSupport

/// A hostile HTTP server on loopback: it answers every request with `200` headers at once, then sends its body one
/// byte per `interval`, never finishing, so that no read ever times out. It stops when released.
final class TricklingHTTPServer: Sendable {
    /// What the server's threads share; they hold it, not the server, so that releasing the server stops them.
    private final class State: Sendable {
        let listener: Int32
        let stopped = Atomic<Bool>(false)
        let sent = Atomic<Int>(0)
        init(listener: Int32) { self.listener = listener }
    }

    /// The port on 127.0.0.1.
    let port: Int
    private let state: State

    /// Body bytes sent so far, over every connection.
    var bytesSent: Int { self.state.sent.load(ordering: .relaxed) }

    /// Listens on a free loopback port and serves on background threads until released.
    init(interval: Duration) throws {
        let listener = try LoopbackPort.listeningDescriptor()
        let state = State(listener: listener.descriptor)
        self.state = state
        self.port = listener.port
        Thread { Self.accept(state, interval: interval) }.start()
    }

    deinit {
        self.state.stopped.store(true, ordering: .relaxed)
        shutdown(self.state.listener, Int32(SHUT_RDWR))
        close(self.state.listener)
    }

    private static func accept(_ state: State, interval: Duration) {
        while !state.stopped.load(ordering: .relaxed) {
            let connection = Descriptors.accept(state.listener)
            guard connection >= 0 else { return }
            Thread { Self.trickle(state, on: connection, interval: interval) }.start()
        }
    }

    private static func trickle(_ state: State, on connection: Int32, interval: Duration) {
        defer { close(connection) }
        // Read the request head; a body after it (a POST to etcd's gateway) is left unread.
        var request: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !String(decoding: request, as: UTF8.self).contains("\r\n\r\n") {
            let count = read(connection, &buffer, buffer.count)
            guard count > 0 else { return }
            request += buffer[..<count]
        }
        let head = Array("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n{".utf8)
        guard send(connection, head, head.count, Int32(MSG_NOSIGNAL)) == head.count else { return }
        let pause = timespec(
            tv_sec: Int(interval.components.seconds),
            tv_nsec: Int(interval.components.attoseconds / 1_000_000_000)
        )
        while !state.stopped.load(ordering: .relaxed) {
            var remaining = pause
            nanosleep(&remaining, nil)
            guard send(connection, [UInt8(ascii: " ")], 1, Int32(MSG_NOSIGNAL)) == 1 else { return }
            state.sent.add(1, ordering: .relaxed)
        }
    }
}
