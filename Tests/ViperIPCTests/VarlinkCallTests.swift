import Foundation
import Glibc
import SettingsAPI
import Testing
import ViperIPC
import ViperTestSupport

@Suite("Varlink calls", .timeLimit(.minutes(1)))
struct VarlinkCallTests {
    @Test(
        "Absent or null parameters arrive as an empty object; unknown top-level keys are ignored",
        arguments: [
            #"{"method": "org.example.test.Echo"}"#,
            #"{"method": "org.example.test.Echo", "parameters": null}"#,
            #"{"method": "org.example.test.Echo", "parameters": {}}"#,
            #"{"method": "org.example.test.Echo", "more": null, "oneway": false, "futureKey": [1, 2]}"#,
        ]
    )
    func emptyParameters(message: String) async throws {
        try await TestServer.with { server in
            try await TestVarlinkClient.withConnection(to: server.socketPath) { client in
                let reply = try await client.call(message)
                #expect(reply == ["parameters": [:]])
            }
            #expect(server.interface.calls.withLock { $0.map(\.parameters) } == [[:]])
        }
    }

    @Test("Parameters reach the handler")
    func echo() async throws {
        try await TestServer.with { server in
            try await TestVarlinkClient.withConnection(to: server.socketPath) { client in
                let reply = try await client.call(
                    #"{"method": "org.example.test.Echo", "parameters": {"a": [1, 2.5, "x", null], "b": {"c": true}, "nul": "a\u0000b"}}"#
                )
                #expect(reply == ["parameters": ["a": [1, 2.5, "x", nil], "b": ["c": true], "nul": "a\u{0}b"]])
            }
        }
    }

    @Test(
        "Parameters that are not an object are InvalidParameter",
        arguments: [#"[1]"#, #""text""#, #"3"#, #"true"#, #"[]"#]
    )
    func nonObjectParameters(parameters: String) async throws {
        try await TestServer.with { server in
            try await TestVarlinkClient.withConnection(to: server.socketPath) { client in
                let reply = try await client.call(#"{"method": "org.example.test.Echo", "parameters": \#(parameters)}"#)
                #expect(
                    reply == [
                        "error": "org.varlink.service.InvalidParameter", "parameters": ["parameter": "parameters"],
                    ]
                )
                // The connection stays usable.
                let next = try await client.call(#"{"method": "org.example.test.Echo", "parameters": {"n": 1}}"#)
                #expect(next == ["parameters": ["n": 1]])
            }
            #expect(server.interface.calls.withLock { $0.count } == 1)
        }
    }

    @Test(
        "more and oneway that are not Booleans are InvalidParameter",
        arguments: [("more", #""yes""#), ("more", "1"), ("oneway", "{}"), ("oneway", #""true""#), ("upgrade", "0")]
    )
    func nonBooleanFlags(flag: String, value: String) async throws {
        try await TestServer.with { server in
            try await TestVarlinkClient.withConnection(to: server.socketPath) { client in
                let reply = try await client.call(#"{"method": "org.example.test.Echo", "\#(flag)": \#(value)}"#)
                #expect(
                    reply == [
                        "error": "org.varlink.service.InvalidParameter", "parameters": ["parameter": .string(flag)],
                    ]
                )
            }
        }
    }

    @Test("A call that sets both oneway and more closes the connection")
    func onewayAndMore() async throws {
        try await TestServer.with { server in
            try await TestVarlinkClient.withConnection(to: server.socketPath) { client in
                try await client.send(#"{"method": "org.example.test.Echo", "oneway": true, "more": true}"#)
                try await client.expectClosed()
            }
            #expect(server.interface.calls.withLock { $0.isEmpty })
        }
    }

    @Test("An unknown method of a served interface is MethodNotFound")
    func methodNotFound() async throws {
        try await TestServer.with { server in
            try await TestVarlinkClient.withConnection(to: server.socketPath) { client in
                let reply = try await client.call(#"{"method": "org.example.test.Nope"}"#)
                #expect(
                    reply == [
                        "error": "org.varlink.service.MethodNotFound",
                        "parameters": ["method": "org.example.test.Nope"],
                    ]
                )
            }
        }
    }

    @Test(
        "A method of an unknown interface is InterfaceNotFound naming it (a name without a dot whole)",
        arguments: [
            ("org.example.nope.Echo", "org.example.nope"), ("Echo", "Echo"), ("org.example.Echo", "org.example"),
        ]
    )
    func interfaceNotFound(method: String, interface: String) async throws {
        try await TestServer.with { server in
            try await TestVarlinkClient.withConnection(to: server.socketPath) { client in
                let reply = try await client.call(#"{"method": "\#(method)"}"#)
                #expect(
                    reply == [
                        "error": "org.varlink.service.InterfaceNotFound",
                        "parameters": ["interface": .string(interface)],
                    ]
                )
            }
        }
    }

    @Test("A VarlinkError thrown by a handler is the error reply, and the connection stays open")
    func declaredError() async throws {
        try await TestServer.with { server in
            try await TestVarlinkClient.withConnection(to: server.socketPath) { client in
                let reply = try await client.call(#"{"method": "org.example.test.Fail"}"#)
                #expect(reply == ["error": "org.example.test.Failed", "parameters": ["reason": "asked to fail"]])
                let next = try await client.call(#"{"method": "org.example.test.Echo"}"#)
                #expect(next == ["parameters": [:]])
            }
        }
    }

    @Test("oneway calls are handled without any reply, even an error")
    func oneway() async throws {
        try await TestServer.with { server in
            try await TestVarlinkClient.withConnection(to: server.socketPath) { client in
                try await client.send(
                    #"{"method": "org.example.test.Echo", "oneway": true, "parameters": {"tag": "one"}}"#
                )
                try await client.send(#"{"method": "org.example.test.Fail", "oneway": true}"#)
                try await client.send(#"{"method": "org.example.test.Nope", "oneway": true}"#)
                try await client.send(#"{"method": "org.example.test.Echo", "oneway": true, "parameters": 5}"#)
                let reply = try await client.call(#"{"method": "org.example.test.Echo", "parameters": {"tag": "two"}}"#)
                #expect(reply == ["parameters": ["tag": "two"]])
            }
            let calls = server.interface.calls.withLock { $0 }
            #expect(calls.map(\.method) == ["org.example.test.Echo", "org.example.test.Fail", "org.example.test.Echo"])
            #expect(calls.map(\.oneway) == [true, true, false])
        }
    }

    @Test("A call with more gets replies with continues, then a last one without")
    func streaming() async throws {
        try await TestServer.with { server in
            try await TestVarlinkClient.withConnection(to: server.socketPath) { client in
                try await client.send(#"{"method": "org.example.test.Stream", "more": true}"#)
                for index in 0..<3 {
                    let reply = try await client.readReply()
                    #expect(reply == ["parameters": ["index": .int(Int64(index))], "continues": true])
                }
                let last = try await client.readReply()
                #expect(last == ["parameters": ["index": 3]])
                // The next call on the connection is answered after the stream.
                let next = try await client.call(#"{"method": "org.example.test.Echo"}"#)
                #expect(next == ["parameters": [:]])
            }
        }
    }

    @Test("A streaming method called without more can answer ExpectedMore")
    func expectedMore() async throws {
        try await TestServer.with { server in
            try await TestVarlinkClient.withConnection(to: server.socketPath) { client in
                let reply = try await client.call(#"{"method": "org.example.test.Stream"}"#)
                #expect(reply == ["error": "org.varlink.service.ExpectedMore", "parameters": [:]])
            }
        }
    }

    @Test("continues in a reply to a call without more is sent as the last reply")
    func continuesWithoutMore() async throws {
        try await TestServer.with { server in
            try await TestVarlinkClient.withConnection(to: server.socketPath) { client in
                let reply = try await client.call(#"{"method": "org.example.test.ContinuesWithoutMore"}"#)
                #expect(reply == ["parameters": ["sent": true]])
                let next = try await client.call(#"{"method": "org.example.test.Echo"}"#)
                #expect(next == ["parameters": [:]])
            }
        }
    }

    @Test("A reply after the last reply is refused and never sent")
    func replyAfterLastReply() async throws {
        try await TestServer.with { server in
            try await TestVarlinkClient.withConnection(to: server.socketPath) { client in
                let reply = try await client.call(#"{"method": "org.example.test.ReplyTwice"}"#)
                #expect(reply == ["parameters": ["count": 1]])
                let next = try await client.call(#"{"method": "org.example.test.Echo", "parameters": {"n": 2}}"#)
                #expect(next == ["parameters": ["n": 2]])
            }
            #expect(server.interface.replyErrors.withLock { $0 } == [.replyAfterLastReply])
        }
    }

    @Test("A reply whose parameters are not an object is refused")
    func replyNotAnObject() async throws {
        try await TestServer.with { server in
            try await TestVarlinkClient.withConnection(to: server.socketPath) { client in
                let reply = try await client.call(#"{"method": "org.example.test.NotAnObject"}"#)
                #expect(reply == ["parameters": [:]])
            }
            #expect(server.interface.replyErrors.withLock { $0 } == [.replyParametersNotAnObject])
        }
    }

    @Test(
        "A handler that throws another error, or returns without replying, closes the connection",
        arguments: ["org.example.test.Crash", "org.example.test.Silent"]
    )
    func handlerBug(method: String) async throws {
        try await TestServer.with { server in
            try await TestVarlinkClient.withConnection(to: server.socketPath) { client in
                try await client.send(#"{"method": "\#(method)"}"#)
                try await client.expectClosed()
            }
            try await TestVarlinkClient.withConnection(to: server.socketPath) { client in
                let reply = try await client.call(#"{"method": "org.example.test.Echo"}"#)
                #expect(reply == ["parameters": [:]])
            }
        }
    }

    @Test("The handler sees the peer credentials of the connecting process")
    func peerCredentials() async throws {
        try await TestServer.with { server in
            try await TestVarlinkClient.withConnection(to: server.socketPath) { client in
                let reply = try await client.call(#"{"method": "org.example.test.WhoAmI"}"#)
                #expect(reply["parameters"]?["pid"] == .int(Int64(getpid())))
                #expect(reply["parameters"]?["uid"] == .int(Int64(getuid())))
                #expect(reply["parameters"]?["gid"] == .int(Int64(getgid())))
                var groups = [gid_t](repeating: 0, count: Int(getgroups(0, nil)))
                _ = getgroups(Int32(groups.count), &groups)
                let seen = reply["parameters"]?["groups"]?.arrayValue?.compactMap(\.intValue) ?? []
                #expect(Set(seen) == Set(groups.map(Int64.init)))
            }
        }
    }

    @Test(
        "The handler sees the supplementary groups the kernel reports: none, a few with group 0, or many",
        .enabled(if: getuid() == 0, "setting another process's groups needs root"),
        arguments: [[], [0, 5, 100], Array(stride(from: 0, to: 3000, by: 37))] as [[UInt32]]
    )
    func peerGroups(_ groups: [UInt32]) async throws {
        try await TestServer.with { server in
            let script = """
                import json, socket
                s = socket.socket(socket.AF_UNIX); s.connect(\(String(reflecting: server.socketPath)))
                s.sendall(b'{"method": "org.example.test.WhoAmI"}\\0'); data = b''
                while not data.endswith(b'\\0'): data += s.recv(65536)
                print(json.dumps(json.loads(data[:-1])["parameters"]["groups"]))
                """
            let setGroups =
                groups.isEmpty ? "--clear-groups" : "--groups=\(groups.map(String.init).joined(separator: ","))"
            let output = try Self.output(of: ["/usr/bin/setpriv", setGroups, "/usr/bin/python3", "-c", script])
            #expect(output == "[\(groups.sorted().map(String.init).joined(separator: ", "))]\n")
        }
    }

    /// Runs `command` and returns what it printed.
    private static func output(of command: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        let pipe = try ProcessStarts.serialized {
            let pipe = Pipe()
            process.standardOutput = pipe
            try process.runAlone()
            return pipe
        }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    @Test("A call is handled on its connection's event loop, with no switch to another thread")
    func handledOnTheEventLoop() async throws {
        try await TestServer.with { server in
            try await TestVarlinkClient.withConnection(to: server.socketPath) { client in
                for _ in 0..<3 {
                    let reply = try await client.call(#"{"method": "org.example.test.Where"}"#)
                    #expect(reply["parameters"] == ["onEventLoop": true])
                }
            }
        }
    }

    @Test("A client that disconnects during a stream ends the handler; the server carries on")
    func disconnectDuringStream() async throws {
        try await TestServer.with { server in
            try await TestVarlinkClient.withConnection(to: server.socketPath) { client in
                try await client.send(#"{"method": "org.example.test.Flood", "more": true}"#)
                for _ in 0..<3 {
                    let reply = try await client.readReply()
                    #expect(reply["continues"] == true)
                }
            }
            await server.interface.floodEnded.wait()
            try await TestVarlinkClient.withConnection(to: server.socketPath) { client in
                let reply = try await client.call(#"{"method": "org.example.test.Echo"}"#)
                #expect(reply == ["parameters": [:]])
            }
        }
    }
}
