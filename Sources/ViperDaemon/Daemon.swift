public import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import SettingsAPI
import UnixSignals
import ViperIPC
import ViperSettings
import ViperStorage

/// The composition root: loads schemas and state, wires every module and the Varlink server, and runs them in a
/// `ServiceGroup` until SIGTERM or SIGINT.
public struct Daemon: Sendable {
    private let configuration: DaemonConfiguration
    private let logger: Logger

    /// Creates the daemon; nothing happens until ``run()``.
    public init(configuration: DaemonConfiguration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
    }

    /// Loads everything, serves until a graceful shutdown, then returns.
    public func run() async throws {
        let logger = self.logger
        let catalog = try ModuleCatalogLoader(directory: self.configuration.modulesDirectory).load()
        for error in catalog.errors {
            logger.error("schema rejected: \(error)", metadata: ["file": "\(error.file ?? "?")"])
        }
        let repository = JSONFileRepository(
            directory: self.configuration.stateDirectory,
            threadPool: NIOThreadPool.singleton,
            logger: logger
        )
        let builder = SettingsModuleBuilder(
            repository: repository,
            accounts: SystemAccountDirectory(),
            logger: logger
        )
        let router = SettingsRouter(presenters: catalog.schemas.map(builder.build(schema:)))
        let server = VarlinkServer(
            configuration: VarlinkServerConfiguration(
                endpoint: .path(self.configuration.socketPath),
                vendor: "viper-settings",
                product: "viper-settingsd",
                version: ViperSettingsVersion.current,
                url: "https://github.com/viper-settings/viper-settings",
                maximumMessageSize: self.configuration.maximumMessageSize,
                maximumConnectionsPerUID: self.configuration.maximumConnectionsPerUID
            ),
            interfaces: [SettingsVarlinkInterface(router: router)],
            eventLoopGroup: MultiThreadedEventLoopGroup.singleton,
            logger: logger
        )
        logger.info(
            "serving \(catalog.schemas.count) modules",
            metadata: [
                "modules": "\(router.moduleNames.joined(separator: ","))",
                "socket": "\(self.configuration.socketPath)",
                "state_dir": "\(self.configuration.stateDirectory)",
            ]
        )
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [.init(service: server)],
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger
            )
        )
        try await group.run()
        await repository.close()
        logger.info("stopped")
    }
}
