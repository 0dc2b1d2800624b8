public import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import SettingsAPI
import Synchronization
import UnixSignals
import ViperIPC
import ViperPOSIX
import ViperSettings
import ViperStorage
import ViperSystemd

/// The composition root: loads schemas and state, wires every module, the Varlink server and the systemd glue,
/// and runs them in a `ServiceGroup` until SIGTERM or SIGINT. SIGHUP re-reads the configuration and the schemas.
public struct Daemon: Sendable {
    private let configuration: DaemonConfiguration
    private let reloadConfiguration: @Sendable () throws -> DaemonConfiguration
    private let environment: [String: String]
    private let logger: Logger

    /// Creates the daemon; nothing happens until ``run()``.
    ///
    /// - Parameters:
    ///   - configuration: The configuration at start.
    ///   - reloadConfiguration: Reads the configuration again, on SIGHUP.
    ///   - environment: The process environment (for the debug-only watchdog knob).
    ///   - logger: Where everything logs.
    public init(
        configuration: DaemonConfiguration,
        reloadConfiguration: @escaping @Sendable () throws -> DaemonConfiguration,
        environment: [String: String],
        logger: Logger
    ) {
        self.configuration = configuration
        self.reloadConfiguration = reloadConfiguration
        self.environment = environment
        self.logger = logger
    }

    /// Loads everything, serves until a graceful shutdown, then returns.
    public func run() async throws {
        let logger = self.logger
        // Held until the daemon has stopped: no second daemon may write the same state files meanwhile.
        let stateLock = try StateDirectoryLock.acquire(self.configuration.stateDirectory)
        defer { withExtendedLifetime(stateLock) {} }
        let notifier = SystemdNotifier()
        let accounts = SystemAccountDirectory()
        let catalog = ModuleCatalog(accounts: accounts, logger: logger)
        // The schemas last served: what a schema changed while the daemon was stopped is told to watchers, and a
        // module whose file is now rejected is served as it was.
        let schemaStore = ServedSchemaStore(stateDirectory: self.configuration.stateDirectory, lock: stateLock)
        let keptSchemas = schemaStore.readKept()
        try catalog.load(
            directory: self.configuration.modulesDirectory,
            maxValueSize: self.configuration.maximumValueSize,
            kept: keptSchemas.sources
        )
        // One event loop serves every connection (see VarlinkServer). Watchers are woken by a job queued on it behind
        // the writer whose change they follow, and behind the job that writer's task queues when it resumes (from the
        // repository back to its connection: two jobs in all before its reply is written): a set is answered before
        // its change fans out to the watchers, not after a thousand of them were written to.
        let servingLoop = MultiThreadedEventLoopGroup.singleton.next()
        let feed = ChangeFeed(schedule: { wake in servingLoop.execute { servingLoop.execute(wake) } })
        let repository = JSONFileRepository(
            directory: self.configuration.stateDirectory,
            threadPool: NIOThreadPool.singleton,
            logger: logger,
            schema: { name in catalog.schema(named: name) },
            feed: feed,
            stateLock: stateLock
        )
        let moduleNames = catalog.current.map(\.name)
        await repository.preload(modules: moduleNames)
        let storageProblems = await repository.problems(modules: moduleNames)
        for problem in storageProblems {
            logger.error(
                "state files: \(problem.message); the modules concerned serve what can be read and refuse writes",
                metadata: ["state_dir": "\(self.configuration.stateDirectory)"]
            )
        }
        let recorder = SyncStatusRecorder(source: self.configuration.remote)
        let remote = try RemoteSourceFactory.make(configuration: self.configuration, logger: logger)
        let source = remote?.source
        // One bound for every module and sync: a client refused everywhere is still at most 20 entries a second.
        let refusals = RefusalAuditLimiter()
        let builder = SettingsModuleBuilder(
            repository: repository,
            accounts: accounts,
            logger: logger,
            remoteRevision: { recorder.snapshot.revision },
            remoteRejections: { recorder.snapshot.rejected },
            refusals: refusals
        )
        // What changes while the daemon runs, for the STATUS= line (StatusLineService works it out again) and `status`.
        let liveProblems = Mutex(storageProblems)
        // The modules whose last write failed (a full disk), until a write succeeds.
        let liveFailingWrites = Mutex<[StorageError]>([])
        // The error of the last configuration reload, when it failed.
        let configurationRefused = Mutex<String?>(nil)
        // The state files as they are now (a problem fixed since is not listed any more, a file system remounted
        // read-write since), and the writes failing now.
        let refreshStorageHealth: @Sendable () async -> Void = {
            let problems = await repository.problems(modules: catalog.current.map(\.name))
            liveProblems.withLock { $0 = problems }
            let failing = await repository.failingWrites()
            liveFailingWrites.withLock { $0 = failing }
        }
        let schemasRefused = Mutex(false)
        let sync = SyncModuleBuilder(repository: repository, accounts: accounts, logger: logger, refusals: refusals)
            .build(
                source: source,
                recorder: recorder,
                schemas: { catalog.current },
                minimumInterval: self.configuration.syncMinimumInterval,
                version: ViperSettingsVersion.current,
                health: {
                    await refreshStorageHealth()
                    return DaemonHealth(
                        unusableStateFiles: liveProblems.withLock { $0.map(\.message) },
                        failingWrites: liveFailingWrites.withLock { $0.map(\.message) },
                        rejectedSchemaFiles: catalog.rejections,
                        configurationReloadError: configurationRefused.withLock { $0 },
                        schemasNotReloaded: schemasRefused.withLock { $0 },
                        modulesDirectoryWithoutSchemas: catalog.emptyDirectory
                    )
                },
                now: { WallClock.system.now() }
            )
        if source == nil {
            // Remote sync off: no source's values are in force, nor its revision; nor those another daemon's source
            // left while this one could not lock the state directory, once it can.
            await repository.whenReadAgain {
                await sync.interactor.dropCachedValues(serialized: false)
                await sync.interactor.refresh()
            }
            await sync.interactor.dropCachedValues()
            await sync.interactor.refresh()
        } else {
            await sync.interactor.restoreRevision()
        }
        // Before serving: a watcher that resumes after its cursor hears of what a schema changed meanwhile.
        let untoldSchemas = UntoldSchemas()
        let schemaTracker = ServedSchemaTracker(store: schemaStore, untold: untoldSchemas, logger: logger)
        await schemaTracker.start(
            kept: keptSchemas,
            catalog: catalog,
            builder: builder,
            maxValueSize: self.configuration.maximumValueSize
        )
        // From new schemas served to what they changed stored, no call runs and watchers read no current values.
        let reloads = SchemaReloadGate()
        // Cursors name the history of the state directory: one of another history starts over with a resync.
        let history = HistoryIdentity.loadOrCreate(
            stateDirectory: self.configuration.stateDirectory,
            store: stateLock.isHeld
        )
        if let problem = history.problem {
            logger.warning(
                "state directory history: \(problem.message)",
                metadata: ["state_dir": "\(self.configuration.stateDirectory)"]
            )
        }
        let watch = WatchModuleBuilder(repository: repository, feed: feed, history: history.token, logger: logger)
            .build(
                schemas: { catalog.current },
                reloads: reloads
            )
        let router = SettingsRouter(
            presenters: catalog.current.map(builder.build(schema:)),
            sync: sync.presenter,
            watch: watch,
            stateGeneration: { repository.currentGeneration },
            reloads: reloads,
            rejectedSchemaFile: { catalog.rejectedFile(ofUnservedModule: $0) }
        )
        let server = VarlinkServer(
            configuration: try self.serverConfiguration(),
            interfaces: [SettingsVarlinkInterface(router: router)],
            eventLoopGroup: servingLoop,
            logger: logger
        )
        let status: @Sendable () -> String = {
            Self.status(
                of: catalog.current,
                sync: recorder.snapshot,
                storageProblems: liveProblems.withLock { $0 },
                failingWrites: liveFailingWrites.withLock { $0 },
                rejectedSchemaFiles: catalog.rejectedFiles,
                configurationRefused: configurationRefused.withLock { $0 },
                schemasRefused: schemasRefused.withLock { $0 },
                emptyModulesDirectory: catalog.emptyDirectory
            )
        }
        let configurations = ConfigurationReloader(
            started: self.configuration,
            read: self.reloadConfiguration,
            logger: logger
        )
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = [
            // Returns early only when it served the one client handed over: then everything stops.
            .init(service: server, successTerminationBehavior: .gracefullyShutdownGroup, serviceName: "VarlinkServer"),
            .init(
                service: ReloadService {
                    notifier.reloading(status: "reloading configuration and schemas")
                    let configurationError = configurations.reload()
                    // The configuration in force: after one with an error, that of the last good reload.
                    let current = configurations.current
                    var schemasReloaded = true
                    // Once the calls in progress are done; those that come meanwhile wait for the reload.
                    await reloads.beginReload()
                    defer { reloads.endReload() }
                    do {
                        // Compared with what watchers were told of: for a module whose change could not be
                        // recorded before, the schema served before that.
                        let baseline = untoldSchemas.baseline(catalog.current)
                        let previousSources = catalog.currentSources
                        let schemas = try catalog.load(
                            directory: current.modulesDirectory,
                            maxValueSize: current.maximumValueSize
                        )
                        router.replace(presenters: schemas.map(builder.build(schema:)))
                        let untold = await builder.adopt(
                            schemas: schemas,
                            previous: baseline.previous,
                            unknownPrevious: baseline.unknown
                        )
                        untoldSchemas.update(
                            untold: untold,
                            previous: baseline.previous,
                            unknown: baseline.unknown,
                            sources: previousSources
                        )
                        // What they were not told of, their watchers get as a resync: they start over from the
                        // values served now.
                        for module in untold.sorted() { feed.reset(module: module, cause: .schemaChangeNotStored) }
                        // The last fleet document again, under the new schemas: a value they reject is no longer
                        // in force (status says so), one they now accept is.
                        await sync.interactor.reapply()
                        schemaTracker.keep(catalog.currentSources)
                    } catch {
                        schemasReloaded = false
                        logger.error("schemas not reloaded, keeping the current ones: \(error)")
                    }
                    configurationRefused.withLock { $0 = configurationError.map { "\($0)" } }
                    schemasRefused.withLock { $0 = !schemasReloaded }
                    // The state files as they are now (a file system remounted read-write since), for the summary.
                    await refreshStorageHealth()
                    let outcome = ReloadOutcome(
                        configurationReloaded: configurationError == nil,
                        schemasReloaded: schemasReloaded,
                        rejectedSchemaFiles: catalog.rejectedFiles.count
                    )
                    logger.log(level: outcome.level, "\(outcome.summary(status: status()))")
                    notifier.ready(status: status())
                },
                serviceName: "ReloadService"
            ),
        ]
        if let interval = SystemdNotifier.watchdogInterval() {
            let hangAfter = self.environment["VIPER_SETTINGSD_DEBUG_HANG_WATCHDOG_AFTER"].flatMap(Double.init)
            // First in the list, so it is shut down last and keeps pinging while the server drains.
            services.insert(
                .init(
                    service: WatchdogService(
                        notifier: notifier,
                        interval: interval / 2,
                        clock: ContinuousClock(),
                        logger: logger,
                        stopPingingAfter: hangAfter.map { .milliseconds(Int64($0 * 1000)) },
                        isHealthy: {
                            // A hung serving loop never answers, so the pings stop and systemd restarts the daemon.
                            (try? await servingLoop.submit { true }.get()) ?? false
                        }
                    ),
                    serviceName: "WatchdogService"
                ),
                at: 0
            )
        }
        if let source {
            services.append(
                .init(
                    service: SyncService(source: source, interactor: sync.interactor, recorder: recorder),
                    serviceName: "SyncService"
                )
            )
        }
        services.append(
            .init(
                service: ReadinessService(server: server, notifier: notifier, status: status, logger: logger),
                serviceName: "ReadinessService"
            )
        )
        if notifier.isEnabled {
            services.append(
                .init(
                    service: StatusLineService(
                        notifier: notifier,
                        interval: .seconds(5),
                        clock: ContinuousClock(),
                        line: {
                            await refreshStorageHealth()
                            return status()
                        }
                    ),
                    serviceName: "StatusLineService"
                )
            )
        }
        logger.info(
            "loaded \(catalog.current.count) modules",
            metadata: [
                "modules": "\(router.moduleNames.joined(separator: ","))",
                "state_dir": "\(self.configuration.stateDirectory)",
            ]
        )
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: services,
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger
            )
        )
        try await group.run()
        await remote?.shutdown()
        await repository.close()
        logger.info("stopped")
    }

    /// Listens on the socket systemd passed (socket activation): the one named `varlink` (the bundled socket
    /// unit's `FileDescriptorName=`) when there is one, else the first listening one; else binds the configured path.
    /// A connected socket alone is one client handed over (`exec:`-style activation, a socket unit with
    /// `Accept=yes`): it is served, then the daemon stops.
    private func serverConfiguration() throws -> VarlinkServerConfiguration {
        let passed = SocketActivation.listeningDescriptors()
        let listening = passed.filter { SocketActivation.isListeningUnixStream($0.fd) }
        let connected = listening.isEmpty ? passed.first { SocketActivation.isConnectedStream($0.fd) } : nil
        let activated = listening.first { $0.name == "varlink" } ?? listening.first
        let served = activated?.fd ?? connected?.fd
        if served == nil, let first = passed.first {
            // Binding the configured path instead would leave the client of the descriptor passed waiting for ever.
            throw ConfigurationError(
                """
                systemd passed fd \(first.fd) (\(first.name)), \(SocketActivation.describe(first.fd)): viper-settingsd \
                serves a listening Unix stream socket (ListenStream= with a path, Accept=no) or one connected client \
                of one; callers are told apart by their credentials, which only Unix sockets carry
                """
            )
        }
        for other in passed where other.fd != served {
            self.logger.warning(
                "systemd passed fd \(other.fd) (\(other.name)), \(SocketActivation.describe(other.fd)), which is not served",
                metadata: ["fd_name": "\(other.name)"]
            )
        }
        if let activated {
            self.logger.info("using the socket passed by systemd", metadata: ["fd_name": "\(activated.name)"])
        } else if let connected {
            self.logger.info(
                "serving the one client of the connected socket passed (exec-style activation), then stopping",
                metadata: ["fd_name": "\(connected.name)"]
            )
        }
        let descriptors = DescriptorLimit.current()
        let maximumConnections = DescriptorLimit.connectionCap(
            configured: self.configuration.maximumConnections,
            limit: descriptors
        )
        if maximumConnections < self.configuration.maximumConnections {
            self.logger.warning(
                """
                max-connections lowered from \(self.configuration.maximumConnections) to \(maximumConnections): the \
                descriptor limit is \(descriptors ?? 0) and \(DescriptorLimit.reserved) are kept for files and the \
                remote (raise LimitNOFILE= or ulimit -n)
                """,
                metadata: ["max_connections": "\(maximumConnections)", "descriptor_limit": "\(descriptors ?? 0)"]
            )
        }
        return VarlinkServerConfiguration(
            endpoint: activated.map { .listeningDescriptor($0.fd) } ?? connected.map { .connectedDescriptor($0.fd) }
                ?? .path(self.configuration.socketPath),
            vendor: "viper-settings",
            product: "viper-settingsd",
            version: ViperSettingsVersion.current,
            url: "https://github.com/viper-settings/viper-settings",
            maximumMessageSize: self.configuration.maximumMessageSize,
            maximumConnections: maximumConnections,
            maximumConnectionsPerUID: self.configuration.maximumConnectionsPerUID,
            idleTimeout: self.configuration.idleTimeout,
            limitErrorName: "\(SettingsMethod.interface).TooManyConnections"
        )
    }

    /// The one-line `STATUS=` text.
    static func status(
        of schemas: [ModuleSchema],
        sync: SyncStatus,
        storageProblems: [StorageError] = [],
        failingWrites: [StorageError] = [],
        rejectedSchemaFiles: [String] = [],
        configurationRefused: String? = nil,
        schemasRefused: Bool = false,
        emptyModulesDirectory: String? = nil
    ) -> String {
        let keys = schemas.reduce(0) { $0 + $1.itemCount }
        let remote = sync.state == .off ? "remote sync off" : "remote sync \(sync.state.rawValue) from \(sync.source)"
        var text = "serving \(schemas.count) modules, \(keys) keys; \(remote)"
        if let configurationRefused {
            text +=
                "; CONFIGURATION NOT RELOADED, the previous one is in force: \(LineLogHandler.escaping(configurationRefused))"
        }
        switch (schemasRefused, emptyModulesDirectory.map(LineLogHandler.escaping)) {
        case (true, let directory?):
            text +=
                "; SCHEMAS NOT RELOADED: the modules directory \(directory) holds no schema files (*.json), the "
                + "previous schemas are in force"
        case (true, nil):
            text +=
                "; SCHEMAS NOT RELOADED: the last reload could not read the modules directory, the previous schemas "
                + "are in force (see the log)"
        case (false, let directory?):
            text += "; NO MODULE SERVED: the modules directory \(directory) holds no schema files (*.json)"
        case (false, nil):
            break
        }
        if let first = rejectedSchemaFiles.first {
            let more = rejectedSchemaFiles.count > 1 ? " and \(rejectedSchemaFiles.count - 1) more" : ""
            // A module whose file was rejected is served as before only when it was served: not at a first start.
            let served = Set(schemas.map(\.name))
            let modules = rejectedSchemaFiles.map { Self.moduleName(ofSchemaFile: $0) }
            let fate =
                modules.allSatisfy(served.contains)
                ? "served as before" : modules.contains(where: served.contains) ? "some served as before" : "not served"
            text += "; SCHEMA REJECTED: \(LineLogHandler.escaping(first))\(more), \(fate) (see the log)"
        }
        if let first = storageProblems.first {
            let more = storageProblems.count > 1 ? " (and \(storageProblems.count - 1) more, see the log)" : ""
            text += "; STATE FILES UNUSABLE: \(first.message)\(more)"
        }
        if let first = failingWrites.first {
            let more = failingWrites.count > 1 ? " (and \(failingWrites.count - 1) more)" : ""
            text += "; WRITES FAILING: \(first.message)\(more); each write tries again"
        }
        return text
    }

    /// The module a schema file is for: its name without the folder and `.json`.
    private static func moduleName(ofSchemaFile file: String) -> String {
        let name = file.split(separator: "/").last.map(String.init) ?? file
        return name.hasSuffix(".json") ? String(name.dropLast(5)) : name
    }
}
