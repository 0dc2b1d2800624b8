import SettingsAPI
import Testing
import ViperIPC

@Suite("Varlink framing", .timeLimit(.minutes(1)))
struct VarlinkFramingTests {
    @Test("Three calls in one write get three replies, in order")
    func pipelining() async throws {
        try await TestServer.with { server in
            try await TestVarlinkClient.withConnection(to: server.socketPath) { client in
                try await client.send(
                    raw: #"{"method": "org.example.test.Echo", "parameters": {"n": 1}}"# + "\0"
                        + #"{"method": "org.example.test.Stream", "more": true}"# + "\0"
                        + #"{"method": "org.example.test.Echo", "parameters": {"n": 3}}"# + "\0"
                )
                #expect(try await client.readReply() == ["parameters": ["n": 1]])
                for index in 0..<3 {
                    #expect(
                        try await client.readReply() == [
                            "parameters": ["index": .int(Int64(index))], "continues": true,
                        ]
                    )
                }
                #expect(try await client.readReply() == ["parameters": ["index": 3]])
                #expect(try await client.readReply() == ["parameters": ["n": 3]])
            }
        }
    }

    @Test("Pipelined calls wait for a slow call before them")
    func pipeliningBehindSlowCall() async throws {
        try await TestServer.with { server in
            try await TestVarlinkClient.withConnection(to: server.socketPath) { client in
                try await client.send(
                    raw: #"{"method": "org.example.test.Slow"}"# + "\0" + #"{"method": "org.example.test.Echo"}"# + "\0"
                )
                await server.interface.slowStarted.wait()
                #expect(server.interface.calls.withLock { $0.map(\.method) } == ["org.example.test.Slow"])
                server.interface.slowRelease.fire()
                #expect(try await client.readReply() == ["parameters": ["done": true]])
                #expect(try await client.readReply() == ["parameters": [:]])
            }
        }
    }

    @Test("A call split across writes is reassembled", arguments: [1, 10, 40])
    func splitCall(splitAt: Int) async throws {
        try await TestServer.with { server in
            try await TestVarlinkClient.withConnection(to: server.socketPath) { client in
                let message = Array(
                    (#"{"method": "org.example.test.Echo", "parameters": {"text": "héllo"}}"# + "\0").utf8
                )
                try await client.send(bytes: Array(message[..<splitAt]))
                try await client.send(bytes: Array(message[splitAt...]))
                #expect(try await client.readReply() == ["parameters": ["text": "héllo"]])
            }
        }
    }

    @Test("A call sent byte by byte is reassembled")
    func byteByByte() async throws {
        try await TestServer.with { server in
            try await TestVarlinkClient.withConnection(to: server.socketPath) { client in
                for byte in (#"{"method": "org.example.test.Echo", "parameters": {"n": 7}}"# + "\0").utf8 {
                    try await client.send(bytes: [byte])
                }
                #expect(try await client.readReply() == ["parameters": ["n": 7]])
            }
        }
    }

    @Test(
        "A message that is not a call closes the connection; the server still serves others",
        arguments: [
            "{not json", "", "[1, 2]", "\"method\"", "null", #"{"parameters": {}}"#, #"{"method": 42}"#,
            #"{"method": "org.example.test.Echo"} trailing"#, "{\"method\": \"org.example.test.Echo\"",
        ]
    )
    func malformed(message: String) async throws {
        try await TestServer.with { server in
            try await TestVarlinkClient.withConnection(to: server.socketPath) { client in
                try await client.send(raw: message + "\0" + #"{"method": "org.example.test.Echo"}"# + "\0")
                try await client.expectClosed()
            }
            #expect(server.interface.calls.withLock { $0.isEmpty })
            try await TestVarlinkClient.withConnection(to: server.socketPath) { client in
                let reply = try await client.call(#"{"method": "org.example.test.Echo"}"#)
                #expect(reply == ["parameters": [:]])
            }
        }
    }

    @Test("Invalid UTF-8 closes the connection")
    func invalidUTF8() async throws {
        try await TestServer.with { server in
            try await TestVarlinkClient.withConnection(to: server.socketPath) { client in
                try await client.send(
                    bytes: Array(#"{"method": "org.example.test.Echo", "parameters": {"x": ""#.utf8) + [0xFF, 0xFE]
                        + Array(#""}}"#.utf8) + [0]
                )
                try await client.expectClosed()
            }
        }
    }

    @Test("A message at the size limit is served")
    func messageAtLimit() async throws {
        try await TestServer.with(maximumMessageSize: 1024) { server in
            try await TestVarlinkClient.withConnection(to: server.socketPath) { client in
                let message = Self.echo(size: 1024)
                #expect(message.utf8.count == 1024)
                let reply = try await client.call(message)
                #expect(reply["parameters"]?["text"]?.stringValue?.count == 1024 - Self.echo(size: 0).utf8.count)
            }
        }
    }

    @Test("A message above the size limit closes the connection, complete or not", arguments: [true, false])
    func messageAboveLimit(complete: Bool) async throws {
        try await TestServer.with(maximumMessageSize: 1024) { server in
            try await TestVarlinkClient.withConnection(to: server.socketPath) { client in
                let message = Self.echo(size: complete ? 1025 : 4000)
                try await client.send(raw: complete ? message + "\0" : message)
                try await client.expectClosed()
            }
            #expect(server.interface.calls.withLock { $0.isEmpty })
            try await TestVarlinkClient.withConnection(to: server.socketPath) { client in
                let reply = try await client.call(#"{"method": "org.example.test.Echo"}"#)
                #expect(reply == ["parameters": [:]])
            }
        }
    }

    /// An Echo call of exactly `size` bytes (at least its size with an empty text).
    private static func echo(size: Int) -> String {
        let prefix = #"{"method": "org.example.test.Echo", "parameters": {"text": ""#
        let suffix = #""}}"#
        let padding = max(0, size - prefix.utf8.count - suffix.utf8.count)
        return prefix + String(repeating: "a", count: padding) + suffix
    }
}

extension VarlinkFramingTests {
    @Test("Calls sent before the client shuts down its sending side are answered, then the connection closes")
    func halfClose() async throws {
        try await TestServer.with { server in
            try await TestVarlinkClient.withConnection(to: server.socketPath) { client in
                try await client.send(
                    raw: #"{"method": "org.example.test.Echo", "parameters": {"n": 1}}"# + "\0"
                        + #"{"method": "org.example.test.Echo", "parameters": {"n": 2}}"# + "\0"
                )
                client.finishSending()
                #expect(try await client.readReply() == ["parameters": ["n": 1]])
                #expect(try await client.readReply() == ["parameters": ["n": 2]])
                try await client.expectClosed()
            }
        }
    }

    @Test("Random bytes never bring the server down")
    func randomInput() async throws {
        try await TestServer.with(maximumMessageSize: 256) { server in
            var generator = SplitMix64(seed: 0x5EED)
            let fragments: [[UInt8]] = [
                Array(#"{"method": "org.example.test.Echo""#.utf8), Array(#", "parameters": "#.utf8), Array("{}".utf8),
                Array("}".utf8), Array(#""more": true"#.utf8), Array(#""oneway": true"#.utf8), [0], [0xFF], [0x22],
                Array("[[[[".utf8), Array(#"\u0000"#.utf8), Array(#""\ud800""#.utf8), Array("1e999".utf8),
            ]
            for _ in 0..<40 {
                var bytes: [UInt8] = []
                for _ in 0..<Int.random(in: 1...30, using: &generator) {
                    if Bool.random(using: &generator) {
                        bytes += fragments.randomElement(using: &generator)!
                    } else {
                        bytes += (0..<Int.random(in: 1...8, using: &generator)).map { _ in
                            UInt8.random(in: 0...255, using: &generator)
                        }
                    }
                }
                // The server answers, ignores or closes; whatever it does, the connection ends when the client
                // closes it, and the server must still serve afterwards.
                _ = try? await TestVarlinkClient.withConnection(to: server.socketPath) { client in
                    try await client.send(bytes: bytes)
                    client.finishSending()
                    while try await client.readMessage() != nil {}
                }
            }
            try await TestVarlinkClient.withConnection(to: server.socketPath) { client in
                let reply = try await client.call(#"{"method": "org.example.test.Echo"}"#)
                #expect(reply == ["parameters": [:]])
            }
        }
    }
}

/// A small seeded random number generator, so that random tests repeat.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { self.state = seed }

    mutating func next() -> UInt64 {
        self.state &+= 0x9E37_79B9_7F4A_7C15
        var z = self.state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
