import Glibc
import Logging
import NIOPosix
import ServiceLifecycle
import SettingsAPI
import Testing
import ViperIPC
import ViperTestSupport

@Suite("Varlink server lifecycle", .timeLimit(.minutes(1)))
struct VarlinkLifecycleTests {
    @Test("Cancelling run stops the server and removes the socket file")
    func cancellation() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path + "/varlink.sock"
        let server = TestServer.makeServer(
            configuration: TestServer.configuration(path: path),
            interface: TestInterface()
        )
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await server.run() }
            try await server.waitUntilListening()
            #expect(isSocket(path))
            try await TestVarlinkClient.withConnection(to: path) { client in
                #expect(try await client.call(#"{"method": "org.example.test.Echo"}"#) == ["parameters": [:]])
                group.cancelAll()
                try await client.expectClosed()
            }
            try await group.waitForAll()
        }
        #expect(!isSocket(path))
        await #expect(throws: VarlinkServerError.notListening) { try await server.waitUntilListening() }
        await #expect(throws: VarlinkServerError.alreadyStarted) { try await server.run() }
    }

    @Test("Graceful shutdown stops accepting, finishes calls in progress, closes idle connections, removes the socket")
    func gracefulShutdown() async throws {
        try await Self.withServiceGroup { path, interface, serviceGroup in
            try await TestVarlinkClient.withConnection(to: path) { idle in
                #expect(try await idle.call(#"{"method": "org.example.test.Echo"}"#) == ["parameters": [:]])
                try await TestVarlinkClient.withConnection(to: path) { busy in
                    try await busy.send(#"{"method": "org.example.test.Slow"}"#)
                    await interface.slowStarted.wait()
                    await serviceGroup.triggerGracefulShutdown()
                    try await idle.expectClosed()
                    interface.slowRelease.fire()
                    #expect(try await busy.readReply() == ["parameters": ["done": true]])
                    try await busy.expectClosed()
                }
            }
        }
    }

    @Test("Graceful shutdown cancels streaming calls")
    func gracefulShutdownCancelsStreams() async throws {
        try await Self.withServiceGroup { path, interface, serviceGroup in
            try await TestVarlinkClient.withConnection(to: path) { client in
                try await client.send(#"{"method": "org.example.test.Forever", "more": true}"#)
                #expect(try await client.readReply() == ["parameters": ["index": 0], "continues": true])
                await serviceGroup.triggerGracefulShutdown()
                await interface.foreverEnded.wait()
                try await client.expectClosed()
            }
        }
    }

    /// Runs a server on a temporary socket in a `ServiceGroup` while `body` runs; `body` triggers the graceful
    /// shutdown. Then expects the group to have returned and the socket file to be gone.
    private static func withServiceGroup(
        _ body: (_ path: String, _ interface: TestInterface, _ serviceGroup: ServiceGroup) async throws -> Void
    ) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path + "/varlink.sock"
        let interface = TestInterface()
        let server = TestServer.makeServer(configuration: TestServer.configuration(path: path), interface: interface)
        let serviceGroup = ServiceGroup(services: [server], logger: TestServer.logger)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await serviceGroup.run() }
            try await server.waitUntilListening()
            try await body(path, interface, serviceGroup)
            try await group.waitForAll()
        }
        #expect(!isSocket(path))
    }

    @Test("The socket's missing parent directories are created; the socket is open to everyone")
    func socketFile() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path + "/run/viper/varlink.sock"
        let server = TestServer.makeServer(
            configuration: TestServer.configuration(path: path),
            interface: TestInterface()
        )
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await server.run() }
            try await server.waitUntilListening()
            #expect(fileMode(directory.path + "/run/viper").map { $0 & S_IFMT == S_IFDIR } == true)
            #expect(fileMode(path).map { $0 & 0o777 } == 0o666)
            try await TestVarlinkClient.withConnection(to: path) { client in
                let reply = try await client.call(#"{"method": "org.example.test.Echo"}"#)
                #expect(reply == ["parameters": [:]])
            }
            group.cancelAll()
        }
        #expect(!isSocket(path))
    }

    @Test("A stale socket file is replaced")
    func staleSocket() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path + "/varlink.sock"
        close(try makeBoundSocket(path: path, listen: true))
        #expect(isSocket(path))
        let server = TestServer.makeServer(
            configuration: TestServer.configuration(path: path),
            interface: TestInterface()
        )
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await server.run() }
            try await server.waitUntilListening()
            try await TestVarlinkClient.withConnection(to: path) { client in
                let reply = try await client.call(#"{"method": "org.example.test.Echo"}"#)
                #expect(reply == ["parameters": [:]])
            }
            group.cancelAll()
        }
    }

    @Test("A file that is not a socket at the path is left alone and fails the server")
    func occupiedPath() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path + "/varlink.sock"
        #expect(mkdir(path, 0o700) == 0)
        let server = TestServer.makeServer(
            configuration: TestServer.configuration(path: path),
            interface: TestInterface()
        )
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                await #expect(throws: VarlinkServerError.socketPathOccupied(path: path)) { try await server.run() }
            }
            await #expect(throws: VarlinkServerError.notListening) { try await server.waitUntilListening() }
            try await group.waitForAll()
        }
        #expect(fileMode(path).map { $0 & S_IFMT == S_IFDIR } == true)
        #expect(VarlinkServerError.socketPathOccupied(path: path).description.contains(path))
    }

    @Test("A socket another server listens on is not taken over")
    func socketInUse() async throws {
        try await TestServer.with { running in
            let second = TestServer.makeServer(
                configuration: TestServer.configuration(path: running.socketPath),
                interface: TestInterface()
            )
            await #expect(throws: VarlinkServerError.socketInUse(path: running.socketPath)) { try await second.run() }
            try await TestVarlinkClient.withConnection(to: running.socketPath) { client in
                let reply = try await client.call(#"{"method": "org.example.test.Echo"}"#)
                #expect(reply == ["parameters": [:]])
            }
        }
    }

    @Test("A listening descriptor from socket activation is served and its socket file left in place")
    func listeningDescriptor() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path + "/activated.sock"
        let descriptor = try makeBoundSocket(path: path, listen: true)
        var configuration = TestServer.configuration(path: path)
        configuration.endpoint = .listeningDescriptor(descriptor)
        let server = TestServer.makeServer(configuration: configuration, interface: TestInterface())
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await server.run() }
            try await server.waitUntilListening()
            try await TestVarlinkClient.withConnection(to: path) { client in
                let reply = try await client.call(#"{"method": "org.varlink.service.GetInfo"}"#)
                #expect(reply["parameters"]?["product"] == "viper-settings-tests")
            }
            group.cancelAll()
        }
        #expect(isSocket(path))
    }

    @Test("waitUntilListening waits for a server started later")
    func waitBeforeRun() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path + "/varlink.sock"
        let server = TestServer.makeServer(
            configuration: TestServer.configuration(path: path),
            interface: TestInterface()
        )
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await server.waitUntilListening() }
            group.addTask { try await server.run() }
            try await group.next()  // the waiter returns once listening; run does not return by itself
            #expect(isSocket(path))
            group.cancelAll()
        }
    }
}
