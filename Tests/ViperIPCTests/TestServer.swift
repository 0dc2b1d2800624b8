import Glibc
import Logging
import NIOPosix
import Testing
import ViperIPC
import ViperTestSupport

/// A running ``VarlinkServer`` with the test interface, on a socket in a temporary directory.
struct TestServer: Sendable {
    let server: VarlinkServer
    let interface: TestInterface
    let socketPath: String

    /// A logger that discards everything, or prints everything if `VIPER_IPC_TEST_LOG` is set.
    static let logger: Logger = {
        guard getenv("VIPER_IPC_TEST_LOG") != nil else {
            return Logger(label: "viper-ipc-tests") { _ in SwiftLogNoOpLogHandler() }
        }
        var logger = Logger(label: "viper-ipc-tests") { label in StreamLogHandler.standardError(label: label) }
        logger.logLevel = .trace
        return logger
    }()

    /// A configuration for a socket at `path`.
    static func configuration(path: String) -> VarlinkServerConfiguration {
        VarlinkServerConfiguration(
            endpoint: .path(path),
            vendor: "Viper",
            product: "viper-settings-tests",
            version: "1.2.3",
            url: "https://example.org/viper",
            limitErrorName: "org.example.test.TooManyConnections"
        )
    }

    /// Creates a server on a socket at `path`.
    static func makeServer(configuration: VarlinkServerConfiguration, interface: TestInterface) -> VarlinkServer {
        VarlinkServer(
            configuration: configuration,
            interfaces: [interface],
            eventLoopGroup: MultiThreadedEventLoopGroup.singleton,
            logger: Self.logger
        )
    }

    /// Runs a server with the given limits until `body` returns, then cancels it and checks that it removed its
    /// socket file.
    static func with<Result: Sendable>(
        maximumMessageSize: Int? = nil,
        maximumConnections: Int? = nil,
        maximumConnectionsPerUID: Int? = nil,
        idleTimeout: Duration? = nil,
        refusalsWaiting: Int? = nil,
        _ body: (TestServer) async throws -> Result
    ) async throws -> Result {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path + "/varlink.sock"
        var configuration = Self.configuration(path: path)
        configuration.maximumMessageSize = maximumMessageSize ?? configuration.maximumMessageSize
        configuration.maximumConnections = maximumConnections ?? configuration.maximumConnections
        // These tests connect as the user running them, often root: the total cap they test holds for it too.
        configuration.reservedForRoot = 0
        configuration.maximumConnectionsPerUID = maximumConnectionsPerUID ?? configuration.maximumConnectionsPerUID
        configuration.idleTimeout = idleTimeout
        // A refused test client sends its call at once, but a busy machine may hold up its task for seconds: the
        // refusal must not close the connection before the call arrives.
        configuration.refusalWait = .seconds(60)
        configuration.refusalsWaiting = refusalsWaiting ?? configuration.refusalsWaiting
        let interface = TestInterface()
        let server = Self.makeServer(configuration: configuration, interface: interface)
        let result = try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await server.run() }
            try await server.waitUntilListening()
            let test = TestServer(server: server, interface: interface, socketPath: path)
            let result = try await body(test)
            group.cancelAll()
            try await group.waitForAll()
            return result
        }
        #expect(!isSocket(path), "the server must remove its socket file when it stops")
        return result
    }
}
