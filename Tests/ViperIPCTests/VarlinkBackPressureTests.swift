import Glibc
import SettingsAPI
import Testing
import ViperTestSupport

@Suite("Varlink back-pressure: a client that sends and never reads")
struct VarlinkBackPressureTests {
    /// The most bytes of calls the test sends before it concludes that the server reads without bound.
    private static let sendLimit = 64 << 20

    @Test("is no longer read once its replies fill the socket; others are served; it then gets every reply in order")
    func clientThatNeverReads() async throws {
        try await TestServer.with { server in
            let descriptor = try Self.connect(to: server.socketPath)
            defer { close(descriptor) }
            let padding = String(repeating: "x", count: 2048)
            func call(_ index: Int) -> [UInt8] {
                let parameters = #"{"value":{"i":\#(index),"p":"\#(padding)"}}"#
                return Array(#"{"method":"org.example.test.Echo","parameters":\#(parameters)}"#.utf8) + [0]
            }
            // Send calls without reading a reply until the socket stays full: the server has stopped reading.
            var sent = 0
            var sentBytes = 0
            var pending = call(0)[...]
            while sentBytes < Self.sendLimit {
                let written = pending.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
                if written > 0 {
                    sentBytes += written
                    pending = pending.dropFirst(written)
                    if pending.isEmpty {
                        sent += 1
                        pending = call(sent)[...]
                    }
                    continue
                }
                guard written < 0, errno == EAGAIN else { throw SystemCallError(operation: "write", code: errno) }
                // Full for now; the server may only be slower than this loop. Full for a whole second: it stopped.
                if !Self.wait(descriptor, for: Int16(POLLOUT), milliseconds: 1000) { break }
            }
            #expect(sentBytes < Self.sendLimit, "the server went on reading calls it could not answer")

            // Meanwhile, another client is served.
            try await TestVarlinkClient.withConnection(to: server.socketPath) { other in
                let reply = try await other.call(#"{"method": "org.example.test.Echo"}"#)
                #expect(reply == ["parameters": [:]])
            }

            // The calls sent whole are answered, in order, once the client reads. The one cut off is never finished.
            var received: [UInt8] = []
            var answered = 0
            var inOrder = true
            var buffer = [UInt8](repeating: 0, count: 1 << 16)
            while answered < sent {
                guard Self.wait(descriptor, for: Int16(POLLIN), milliseconds: 30_000) else { break }
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                guard count > 0 else { break }
                received += buffer[..<count]
                while let end = received.firstIndex(of: 0) {
                    let reply = try JSONValue(parsing: Array(received[..<end]))
                    received.removeSubrange(...end)
                    if reply["parameters"]?["value"]?["i"] != .int(Int64(answered)) { inOrder = false }
                    answered += 1
                }
            }
            #expect(answered == sent)
            #expect(inOrder)
        }
    }

    /// A non-blocking connection to the socket at `path`.
    private static func connect(to path: String) throws -> Int32 {
        let descriptor = try makeUnixSocket(path: path, "connect") { Glibc.connect($0, $1, $2) }
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        return descriptor
    }

    /// Whether `descriptor` becomes ready for `events` within `milliseconds`.
    private static func wait(_ descriptor: Int32, for events: Int16, milliseconds: Int32) -> Bool {
        var entry = pollfd(fd: descriptor, events: events, revents: 0)
        return poll(&entry, 1, milliseconds) == 1
    }
}
