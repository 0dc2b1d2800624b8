import Foundation
import Glibc
import Synchronization

/// An HTTP server on loopback that answers its first requests with a canned response, then holds every later
/// connection open without sending a byte (a server that hangs), and counts the requests it read. It stops when
/// released; a held connection ends when its client closes it.
public final class HoldingHTTPServer: Sendable {
    /// What the server's threads share; they hold it, not the server, so that releasing the server stops them.
    private final class State: Sendable {
        let listener: Int32
        let answered: Int
        let response: [UInt8]
        let stopped = Atomic<Bool>(false)
        let requests = Atomic<Int>(0)
        init(listener: Int32, answered: Int, response: [UInt8]) {
            self.listener = listener
            self.answered = answered
            self.response = response
        }
    }

    /// The port on 127.0.0.1.
    public let port: Int
    private let state: State

    /// Requests whose head was read so far, answered or held.
    public var requests: Int { self.state.requests.load(ordering: .relaxed) }

    /// Listens on a free loopback port; the first `answered` requests get `response`, the next ones are held.
    public init(answering answered: Int, with response: String) throws {
        let (listener, port) = try Self.listening()
        let state = State(listener: listener, answered: answered, response: Array(response.utf8))
        self.state = state
        self.port = port
        Thread { Self.accept(state) }.start()
    }

    /// A socket listening on a free port of 127.0.0.1, and the port.
    private static func listening() throws -> (Int32, Int) {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ready = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(descriptor, pointer, length) == 0 && listen(descriptor, 16) == 0
                    && getsockname(descriptor, pointer, &length) == 0
            }
        }
        guard ready else {
            let error = POSIXError(.init(rawValue: errno) ?? .EIO)
            close(descriptor)
            throw error
        }
        return (descriptor, Int(UInt16(bigEndian: address.sin_port)))
    }

    deinit {
        self.state.stopped.store(true, ordering: .relaxed)
        shutdown(self.state.listener, Int32(SHUT_RDWR))
        close(self.state.listener)
    }

    private static func accept(_ state: State) {
        while !state.stopped.load(ordering: .relaxed) {
            let connection = Descriptors.accept(state.listener)
            guard connection >= 0 else { return }
            Thread { Self.serve(state, on: connection) }.start()
        }
    }

    private static func serve(_ state: State, on connection: Int32) {
        defer { close(connection) }
        // Read the request head; a body after it (a POST to etcd's gateway) is left unread.
        var request: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !String(decoding: request, as: UTF8.self).contains("\r\n\r\n") {
            let count = read(connection, &buffer, buffer.count)
            guard count > 0 else { return }
            request += buffer[..<count]
        }
        // Counted once the request is complete, so that a test waiting for it knows the client is waiting.
        let number = state.requests.add(1, ordering: .relaxed).newValue
        if number <= state.answered {
            _ = send(connection, state.response, state.response.count, Int32(MSG_NOSIGNAL))
            return
        }
        // Held: read (and drop) whatever comes until the client closes the connection.
        while !state.stopped.load(ordering: .relaxed), read(connection, &buffer, buffer.count) > 0 {}
    }
}
