import SettingsAPI
import Testing
import ViperIPC

/// Calls an interface answers on the spot (``VarlinkInterface/replyNow(to:)``), on the connection's event loop.
@Suite("Varlink calls answered on the spot", .timeLimit(.minutes(1)))
struct VarlinkImmediateReplyTests {
    /// Calls `Now` until the event loop answers it (`now: true`): right after a call answered by the connection's
    /// task, that task may not be back waiting for the next call yet, and then the task answers (`now: false`).
    /// Returns whether it was answered on the spot within 100 calls.
    private static func answeredOnTheSpotSoon(_ client: inout TestVarlinkClient) async throws -> Bool {
        for _ in 0..<100 {
            let reply = try await client.call(#"{"method": "org.example.test.Now"}"#)
            if reply == ["parameters": ["now": true, "value": nil]] { return true }
            #expect(reply == ["parameters": ["now": false, "value": nil]])
        }
        return false
    }

    @Test("a call the interface can answer on the spot is answered without reaching its handler")
    func answeredOnTheSpot() async throws {
        try await TestServer.with { server in
            try await TestVarlinkClient.withConnection(to: server.socketPath) { client in
                #expect(try await Self.answeredOnTheSpotSoon(&client))
                let handled = server.interface.calls.withLock { $0.count }
                for index in 0..<3 {
                    let reply = try await client.call(
                        #"{"method": "org.example.test.Now", "parameters": {"value": {"i": \#(index)}}}"#
                    )
                    #expect(reply == ["parameters": ["now": true, "value": ["i": .int(Int64(index))]]])
                }
                #expect(server.interface.calls.withLock { $0.count } == handled, "the handler saw none of them")
            }
        }
    }

    @Test("a reply made on the spot is sent again to the same bytes while the generation holds, made anew after")
    func repliesReused() async throws {
        try await TestServer.with { server in
            let interface = server.interface
            interface.generation.store(1, ordering: .sequentiallyConsistent)
            interface.count.store(7, ordering: .sequentiallyConsistent)
            let counter = #"{"method": "org.example.test.Counter"}"#
            try await TestVarlinkClient.withConnection(to: server.socketPath) { client in
                let onTheSpot = try await Self.answeredOnTheSpotSoon(&client)
                #expect(onTheSpot)
                // Made once on the spot, then sent again from the call's bytes: the interface is not asked.
                let made = interface.madeNow.load(ordering: .sequentiallyConsistent)
                #expect(try await client.call(counter) == ["parameters": ["count": 7]])
                interface.count.store(8, ordering: .sequentiallyConsistent)
                for _ in 0..<3 { #expect(try await client.call(counter) == ["parameters": ["count": 7]]) }
                #expect(interface.madeNow.load(ordering: .sequentiallyConsistent) == made + 1)
            }
            // Shared by connections; a new generation makes it again, as do other bytes for the same call.
            try await TestVarlinkClient.withConnection(to: server.socketPath) { client in
                let reused = try await client.call(counter)
                #expect(reused == ["parameters": ["count": 7]])
                interface.generation.store(2, ordering: .sequentiallyConsistent)
                #expect(try await client.call(counter) == ["parameters": ["count": 8]])
                interface.count.store(9, ordering: .sequentiallyConsistent)
                let compact = #"{"method":"org.example.test.Counter"}"#
                #expect(try await client.call(compact) == ["parameters": ["count": 9]])
                // An interface without a generation never gets a reply reused.
                interface.generation.store(0, ordering: .sequentiallyConsistent)
                #expect(try await client.call(counter) == ["parameters": ["count": 9]])
                interface.count.store(10, ordering: .sequentiallyConsistent)
                #expect(try await client.call(counter) == ["parameters": ["count": 10]])
            }
        }
    }

    @Test("replies keep the order of calls: behind a call in progress, the next one waits its turn")
    func orderKept() async throws {
        try await TestServer.with { server in
            try await TestVarlinkClient.withConnection(to: server.socketPath) { client in
                // One write, so the server reads Now while Slow is in progress: Now must wait behind it.
                try await client.send(
                    raw: #"{"method": "org.example.test.Slow"}"# + "\0"
                        + #"{"method": "org.example.test.Now", "parameters": {"value": 1}}"# + "\0"
                        + #"{"method": "org.example.test.Echo", "parameters": {"e": 2}}"# + "\0"
                )
                await server.interface.slowStarted.wait()
                server.interface.slowRelease.fire()
                #expect(try await client.readReply() == ["parameters": ["done": true]])
                let now = try await client.readReply()
                #expect(now == ["parameters": ["now": false, "value": 1]], "\(now)")
                let echo = try await client.readReply()
                #expect(echo == ["parameters": ["e": 2]], "\(echo)")
                // Every call answered: calls are answered on the spot again.
                #expect(try await Self.answeredOnTheSpotSoon(&client))
            }
        }
    }

    @Test("after a stream's last reply, and after an error, calls are answered on the spot again")
    func afterStreamsAndErrors() async throws {
        try await TestServer.with { server in
            try await TestVarlinkClient.withConnection(to: server.socketPath) { client in
                try await client.send(#"{"method": "org.example.test.Stream", "more": true}"#)
                for index in 0..<4 {
                    let reply = try await client.readReply()
                    #expect(reply["parameters"]?["index"] == .int(Int64(index)))
                }
                #expect(try await Self.answeredOnTheSpotSoon(&client))
                let failed = try await client.call(#"{"method": "org.example.test.Fail"}"#)
                #expect(failed["error"] == "org.example.test.Failed")
                #expect(try await Self.answeredOnTheSpotSoon(&client))
                // A oneway call gets no reply, so it holds nothing back once done.
                try await client.send(#"{"method": "org.example.test.Echo", "oneway": true}"#)
                #expect(try await client.call(#"{"method": "org.example.test.Echo"}"#) == ["parameters": [:]])
                #expect(try await Self.answeredOnTheSpotSoon(&client))
            }
        }
    }

    @Test("a oneway call before a call that could be answered on the spot is done first")
    func onewayDoneFirst() async throws {
        try await TestServer.with { server in
            try await TestVarlinkClient.withConnection(to: server.socketPath) { client in
                #expect(try await Self.answeredOnTheSpotSoon(&client))
                // One write: Slow (oneway, no reply) is read first; Now must not overtake it.
                try await client.send(
                    raw: #"{"method": "org.example.test.Slow", "oneway": true}"# + "\0"
                        + #"{"method": "org.example.test.Now", "parameters": {"value": 1}}"# + "\0"
                )
                await server.interface.slowStarted.wait()
                server.interface.slowRelease.fire()
                #expect(try await client.readReply() == ["parameters": ["now": false, "value": 1]])
                #expect(server.interface.calls.withLock { $0.map(\.methodName).suffix(2) } == ["Slow", "Now"])
            }
        }
    }

    @Test("a call with more, or oneway, is never answered on the spot")
    func onlyPlainCalls() async throws {
        try await TestServer.with { server in
            try await TestVarlinkClient.withConnection(to: server.socketPath) { client in
                let more = try await client.call(#"{"method": "org.example.test.Now", "more": true}"#)
                #expect(more == ["parameters": ["now": false, "value": nil]])
                try await client.send(#"{"method": "org.example.test.Now", "oneway": true}"#)
                #expect(try await client.call(#"{"method": "org.example.test.Echo"}"#) == ["parameters": [:]])
            }
            #expect(server.interface.calls.withLock { $0.map(\.methodName) } == ["Now", "Now", "Echo"])
        }
    }

    @Test("calls answered on the spot count as activity: the idle timeout does not close a busy connection")
    func activityKeepsTheConnection() async throws {
        let timeout = Duration.milliseconds(1500)
        try await TestServer.with(idleTimeout: timeout) { server in
            try await TestVarlinkClient.withConnection(to: server.socketPath) { client in
                let clock = ContinuousClock()
                let start = clock.now
                var last = start
                var longestGap = Duration.zero
                var closedEarly = false
                var onTheSpot = 0
                var answered = 0
                // Calls for twice the idle timeout: if the ones answered on the spot did not count, the connection
                // would be closed one timeout after the last call its task answered.
                while clock.now - start < timeout * 2 {
                    // Read without the helper that records a closed connection as an issue: a close after a stall
                    // of this process (a long gap, below) proves nothing.
                    try? await client.send(#"{"method": "org.example.test.Now"}"#)
                    if let reply = try? await client.readMessage() {
                        if reply == ["parameters": ["now": true, "value": nil]] { onTheSpot += 1 }
                        answered += 1
                    } else {
                        closedEarly = true
                    }
                    longestGap = max(longestGap, clock.now - last)
                    last = clock.now
                    if closedEarly { break }
                }
                // A machine so busy that one call took half the timeout proves nothing either way; nor does one so
                // busy that the timeout passed between connecting and the first call.
                guard longestGap < timeout / 2, answered > 0 else { return }
                #expect(!closedEarly, "the connection was closed while calls kept coming")
                #expect(onTheSpot > 0)
                guard !closedEarly else { return }
                // Then, idle, it is closed after the timeout.
                try await client.expectClosed()
            }
        }
    }

    @Test("a connection over the limit is refused, not answered on the spot")
    func refusedConnections() async throws {
        try await TestServer.with(maximumConnections: 1) { server in
            try await TestVarlinkClient.withConnection(to: server.socketPath) { first in
                #expect(try await first.call(#"{"method": "org.example.test.Echo"}"#) == ["parameters": [:]])
                try await TestVarlinkClient.withConnection(to: server.socketPath) { second in
                    try await second.send(#"{"method": "org.example.test.Now"}"#)
                    let reply = try await second.readReply()
                    #expect(reply["error"] == "org.example.test.TooManyConnections", "\(reply)")
                    try await second.expectClosed()
                }
            }
        }
    }
}
