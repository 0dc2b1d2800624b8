import NIOCore
import SettingsAPI
import Synchronization
import Testing
import ViperIPC

@Suite("Varlink connection limits", .timeLimit(.minutes(1)))
struct VarlinkLimitTests {
    @Test("A connection over the per-uid limit gets an error naming the limit, then is closed; one fits again later")
    func perUIDLimit() async throws {
        try await TestServer.with(maximumConnectionsPerUID: 2) { server in
            try await TestVarlinkClient.withConnection(to: server.socketPath) { first in
                #expect(try await first.call(#"{"method": "org.example.test.Echo"}"#) == ["parameters": [:]])
                try await TestVarlinkClient.withConnection(to: server.socketPath) { second in
                    #expect(try await second.call(#"{"method": "org.example.test.Echo"}"#) == ["parameters": [:]])
                    try await TestVarlinkClient.withConnection(to: server.socketPath) { third in
                        try await third.send(#"{"method": "org.example.test.Echo"}"#)
                        #expect(
                            try await third.readReply() == [
                                "error": "org.example.test.TooManyConnections",
                                "parameters": ["limit": "max-connections-per-uid", "maximum": 2],
                            ]
                        )
                        try await third.expectClosed()
                    }
                }
                try await Self.expectServedEventually(at: server.socketPath)
            }
        }
    }

    @Test("Over a limit, a oneway call gets no reply, not even the error; the first call expecting one gets the error")
    func onewayOverTheLimit() async throws {
        try await TestServer.with(maximumConnections: 1) { server in
            try await TestVarlinkClient.withConnection(to: server.socketPath) { first in
                #expect(try await first.call(#"{"method": "org.example.test.Echo"}"#) == ["parameters": [:]])
                try await TestVarlinkClient.withConnection(to: server.socketPath) { second in
                    try await second.send(#"{"method": "org.example.test.Echo", "oneway": true}"#)
                    second.finishSending()  // nothing more comes: the server closes without a reply
                    try await second.expectClosed()
                }
                // A oneway call, then one that expects a reply, sent together: that one gets the error.
                try await TestVarlinkClient.withConnection(to: server.socketPath) { third in
                    try await third.send(
                        raw: #"{"method": "org.example.test.Echo", "oneway": true}"# + "\0"
                            + #"{"method": "org.example.test.Echo"}"# + "\0"
                    )
                    #expect(
                        try await third.readReply() == [
                            "error": "org.example.test.TooManyConnections",
                            "parameters": ["limit": "max-connections", "maximum": 1],
                        ]
                    )
                    try await third.expectClosed()
                }
            }
        }
    }

    @Test("A connection over the total limit gets an error naming the limit, then is closed")
    func totalLimit() async throws {
        try await TestServer.with(maximumConnections: 1) { server in
            try await TestVarlinkClient.withConnection(to: server.socketPath) { first in
                #expect(try await first.call(#"{"method": "org.example.test.Echo"}"#) == ["parameters": [:]])
                try await TestVarlinkClient.withConnection(to: server.socketPath) { second in
                    try await second.send(#"{"method": "org.example.test.Echo"}"#)
                    #expect(
                        try await second.readReply() == [
                            "error": "org.example.test.TooManyConnections",
                            "parameters": ["limit": "max-connections", "maximum": 1],
                        ]
                    )
                    try await second.expectClosed()
                }
                #expect(try await first.call(#"{"method": "org.example.test.Echo"}"#) == ["parameters": [:]])
            }
        }
    }

    @Test("Past the refusals that wait for a call, a connection over a limit gets the error at once, call or not")
    func refusedAtOnce() async throws {
        try await TestServer.with(maximumConnections: 1, refusalsWaiting: 0) { server in
            try await TestVarlinkClient.withConnection(to: server.socketPath) { first in
                #expect(try await first.call(#"{"method": "org.example.test.Echo"}"#) == ["parameters": [:]])
                let error: JSONValue = [
                    "error": "org.example.test.TooManyConnections",
                    "parameters": ["limit": "max-connections", "maximum": 1],
                ]
                // A client that sent nothing yet finds the error waiting, then the end.
                try await TestVarlinkClient.withConnection(to: server.socketPath) { silent in
                    #expect(try await silent.readReply() == error)
                    try await silent.expectClosed()
                }
                // One that sends its call reads the error as its reply, not a reset (on a busy machine the server
                // may have answered and closed before the call could be sent: the error is there all the same).
                try await TestVarlinkClient.withConnection(to: server.socketPath) { calling in
                    try? await calling.send(#"{"method": "org.example.test.Echo"}"#)
                    #expect(try await calling.readReply() == error)
                    try await calling.expectClosed()
                }
                #expect(try await first.call(#"{"method": "org.example.test.Echo"}"#) == ["parameters": [:]])
            }
        }
    }

    @Test("A connection idle longer than the idle timeout is closed")
    func idleTimeout() async throws {
        try await TestServer.with(idleTimeout: .milliseconds(50)) { server in
            try await TestVarlinkClient.withConnection(to: server.socketPath) { client in
                try await client.expectClosed()
            }
        }
    }

    @Test("A call in progress is not cut by the idle timeout")
    func idleTimeoutSparesCalls() async throws {
        // The call must reach the server before the idle timeout: 5 s leaves room for a loaded machine.
        try await TestServer.with(idleTimeout: .seconds(5)) { server in
            let replied = Mutex(false)
            do {
                try await TestVarlinkClient.withConnection(to: server.socketPath) { client in
                    try await client.send(#"{"method": "org.example.test.Slow"}"#)
                    await server.interface.slowStarted.wait()
                    // Not synchronization: the time that must pass without the busy connection being closed.
                    try await Task.sleep(for: .seconds(6))
                    server.interface.slowRelease.fire()
                    #expect(try await client.readReply() == ["parameters": ["done": true]])
                    replied.withLock { $0 = true }
                }
            } catch ChannelError.ioOnClosedChannel where replied.withLock({ $0 }) {
                // Idle again after its reply, the connection may be closed by the server before the client closes
                // it, on a machine slow enough: what the test is about, the reply, arrived.
            }
        }
    }

    /// Connects until a call is served: the server uncounts a closed connection asynchronously.
    private static func expectServedEventually(at path: String) async throws {
        for _ in 0..<1000 {
            // A refused connection gets an error reply: that counts as not served.
            let served = try? await TestVarlinkClient.withConnection(to: path) { client in
                try await client.send(#"{"method": "org.example.test.Echo"}"#)
                guard let reply = try await client.readMessage() else { return false }
                return reply["error"] == nil
            }
            if served == true { return }
        }
        Issue.record("no connection was served after one closed")
    }
}
