import NIOCore
import SettingsAPI
import Testing

@testable import ViperIPC

/// A message with a key twice is not a call: no reader may take one `method` and the daemon another.
@Suite("Varlink messages with a duplicate key", .timeLimit(.minutes(1)))
struct VarlinkDuplicateKeyTests {
    static let messages = [
        #"{"method": "org.example.test.Echo", "method": "org.example.test.Slow"}"#,
        #"{"method": "org.example.test.Echo", "parameters": {"n": 1}, "parameters": {"n": 2}}"#,
        #"{"method": "org.example.test.Echo", "oneway": false, "oneway": true}"#,
        #"{"method": "org.example.test.Echo", "parameters": {"n": 1, "n": 2}}"#,
    ]

    @Test("is a protocol violation whose reason names the key", arguments: Self.messages)
    func classified(message: String) {
        guard case .protocolViolation(let reason) = VarlinkRequest(message: ByteBuffer(string: message)) else {
            Issue.record("expected a protocol violation")
            return
        }
        #expect(reason.contains("duplicate key"))
        #expect(
            reason.contains(#""method""#) || reason.contains(#""parameters""#) || reason.contains(#""oneway""#)
                || reason.contains(#""n""#)
        )
    }

    @Test("sent over a real socket, closes the connection and calls nothing", arguments: Self.messages)
    func overSocket(message: String) async throws {
        try await TestServer.with { server in
            try await TestVarlinkClient.withConnection(to: server.socketPath) { client in
                try await client.send(raw: message + "\0")
                try await client.expectClosed()
            }
            #expect(server.interface.calls.withLock { $0.isEmpty })
            try await TestVarlinkClient.withConnection(to: server.socketPath) { client in
                let reply = try await client.call(#"{"method": "org.example.test.Echo"}"#)
                #expect(reply == ["parameters": [:]])
            }
        }
    }
}
