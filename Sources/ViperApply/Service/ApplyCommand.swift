public import ArgumentParser
import Foundation
import Logging
import NIOPosix
import ServiceLifecycle
import SettingsAPI
public import ViperCommandLine
import ViperIPC
import ViperPOSIX
import ViperSystemd

/// `viper-settings-apply`: renders the system's own configuration files from settings and keeps them current.
public struct ApplyCommand: ServiceCommand {
    public static let configuration = CommandConfiguration(
        commandName: "viper-settings-apply",
        abstract: "Render the system's own configuration files from settings, and keep them current.",
        discussion: """
            Reads targets (NAME.json and a Mustache template) from the targets directory, follows the settings \
            daemon with Watch, and renders each target whose values changed: unchanged bytes do nothing; \
            otherwise the target's check command on a copy beside the destination, then a new temporary file \
            beside it (which no check had), fsync, rename, fsync of the directory, its reload command. A failed \
            check leaves the destination untouched; a failed reload \
            puts the previous file back and reloads again. Its cursor, values and outcomes are kept in \
            STATE_DIR/state.json, so a restart misses nothing. `settingsctl apply status` and \
            `settingsctl apply --dry-run` ask it over its control socket (io.viper.settings.Apply).

            A failed write or reload is tried again after 1 s, doubling to 5 min, until it succeeds; a check that \
            refuses the rendered file is not (the same bytes would be refused again). With --root, reload commands \
            are not run (the outcome says so), as systemctl --root does not start services; --run-reloads runs \
            them.

            SIGHUP re-reads the targets; SIGTERM and SIGINT stop it: a check or reload command running then is \
            stopped at once (SIGTERM to its process group, SIGKILL \(Self.interruptGraceSeconds) s later), and a \
            target whose check was stopped is not written (the next start applies it). SIGUSR1, SIGUSR2 and SIGALRM \
            are ignored.

            The control socket serves at most \(Self.maximumConnections) connections at once, \
            \(Self.maximumConnectionsPerUID) per uid: a connection over a limit gets \
            \(ApplyMethod.tooManyConnections) (limit, maximum) as the reply to its first call, then is closed. A \
            connection without a call for \(Self.idleTimeoutSeconds) s is closed.

            Exit status:
              0  stopped gracefully (SIGTERM, SIGINT).
              1  a failure: a socket it cannot listen on, a state directory it
                 cannot create or one another viper-settings-apply holds (it
                 locks its state directory while it runs), or a targets
                 directory it cannot read at start.
              2  a usage error.

            Examples:
              viper-settings-apply --targets-dir config/apply.d \\
                --socket /run/viper-settings/io.viper.settings
              viper-settings-apply --root /tmp/image --state-dir /tmp/apply-state \\
                --control-socket /tmp/apply.sock
            """,
        version: "viper-settings-apply \(ViperSettingsVersion.current)"
    )

    @Option(
        name: .customLong("targets-dir"),
        help: ArgumentHelp(
            "Where target files are read (default: \(ApplyPaths.defaultTargetsDirectory)).",
            valueName: "dir"
        )
    )
    var targetsDirectory: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            """
            The settings daemon's socket (default: $\(ApplyPaths.daemonSocketVariable), else \
            \(ApplyPaths.defaultDaemonSocket)).
            """,
            valueName: "path"
        )
    )
    var socket: String?

    @Option(
        name: .customLong("state-dir"),
        help: ArgumentHelp(
            """
            Where state.json and the dry run's scratch files are kept; one applier at a time (it locks the \
            directory) (default: $STATE_DIRECTORY, else \(ApplyPaths.defaultStateDirectory)).
            """,
            valueName: "dir"
        )
    )
    var stateDirectory: String?

    @Option(
        name: .customLong("control-socket"),
        help: ArgumentHelp(
            """
            The socket it serves io.viper.settings.Apply on (default: \
            $RUNTIME_DIRECTORY/\(ApplyPaths.controlSocketName), else \
            \(ApplyPaths.defaultRuntimeDirectory)/\(ApplyPaths.controlSocketName)).
            """,
            valueName: "path"
        )
    )
    var controlSocket: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "An absolute path to a directory prefixed to every destination (an image), which must exist. Reload"
                + " commands are not run: they would act on the running system.",
            valueName: "dir"
        )
    )
    var root: String?

    @Flag(
        name: .customLong("run-reloads"),
        help: "With --root, run the targets' reload commands all the same (a root that is the running system, a test)."
    )
    var runReloads = false

    @Option(
        name: .customLong("log-level"),
        help: ArgumentHelp(
            "trace, debug, info, notice, warning, error or critical (default: \(Self.defaultLogLevel.rawValue)).",
            valueName: "level"
        )
    )
    var logLevel: String?

    /// `--log-level`'s default.
    static let defaultLogLevel = Logger.Level.info
    /// The most connections the control socket serves at once, and per peer uid.
    static let maximumConnections = 64
    static let maximumConnectionsPerUID = 16
    /// A control connection without a call for this long is closed.
    static let idleTimeoutSeconds = 60
    /// How long a check or reload stopped by SIGTERM (the applier stops) has before SIGKILL.
    static let interruptGraceSeconds = 2
    /// The threads that checks and reloads wait on: each command holds one until it exits (up to 60 s), and a dry
    /// run runs every target's check at the same time. More commands at once wait for a thread.
    static let commandThreads = 16

    public init() {}

    public func validate() throws {
        guard self.logLevel.map({ Logger.Level(rawValue: $0) != nil }) ?? true else {
            throw ValidationError("--log-level must be trace, debug, info, notice, warning, error or critical")
        }
        // An empty root (`--root "$IMAGE"` with IMAGE unset) is refused, not taken for the running system.
        for (flag, value) in [
            ("--targets-dir", self.targetsDirectory), ("--socket", self.socket), ("--state-dir", self.stateDirectory),
            ("--control-socket", self.controlSocket), ("--root", self.root),
        ] where value?.isEmpty == true {
            throw ValidationError("\(flag): the path is empty")
        }
        // A mistyped root would be made, a whole tree written under it: the image must be there.
        if let root = self.root {
            guard root.hasPrefix("/") else { throw ValidationError("--root must be absolute") }
            var status = stat()
            guard stat(root, &status) == 0, status.st_mode & S_IFMT == S_IFDIR else {
                throw ValidationError("--root \(root) is not a directory: give the image's root, made beforehand")
            }
        }
    }

    public func run() async throws {
        let paths = self.paths(environment: ProcessInfo.processInfo.environment)
        let stateDirectory = paths.stateDirectory
        let controlSocket = paths.controlSocket
        let daemonSocket = paths.daemonSocket

        let useJournal = JournalLogHandler.isConnectedToJournal()
        var logger = Logger(label: "viper-settings-apply") { label -> any LogHandler in
            useJournal
                ? JournalLogHandler(identifier: "viper-settings-apply") : LineLogHandler(label: label)
        }
        logger.logLevel = self.logLevel.flatMap(Logger.Level.init(rawValue:)) ?? Self.defaultLogLevel

        try FileIO.makeDirectories(stateDirectory)
        // Held until the applier stops: two appliers would each record, and rewrite, what the other wrote.
        let stateLock: DirectoryLock?
        do throws(DirectoryLock.Failure) {
            stateLock = try DirectoryLock.acquire(stateDirectory)
        } catch .held {
            throw ApplyError.stateDirectoryInUse(path: stateDirectory)
        } catch .system(let code) {
            throw ApplyError.state(path: stateDirectory, reason: "cannot lock it: \(SystemErrorText.describe(code))")
        }
        defer { withExtendedLifetime(stateLock) {} }
        // Absolute: commands run in the targets directory, and a dry run's check is given a file in here.
        let scratch =
            (stateDirectory.hasPrefix("/") ? "" : FileManager.default.currentDirectoryPath + "/") + stateDirectory
            + "/dry-run"
        try FileIO.makeDirectories(scratch)
        // Without its trailing slashes (`/image/` is `/image`): destinations are written `ROOT/etc/…`.
        var root = self.root ?? ""
        while root.count > 1 && root.hasSuffix("/") { root.removeLast() }
        let loader = ApplyTargetLoader(directory: paths.targetsDirectory, root: root)
        let notifier = SystemdNotifier()
        // Not NIO's shared pool (a thread per core): a slow check would hold up a dry run's checks, and the rest.
        let commandPool = NIOThreadPool(numberOfThreads: Self.commandThreads)
        commandPool.start()
        defer { commandPool.shutdownGracefully { _ in } }
        let interactor = ApplyInteractor(
            applier: FileApplier(
                // In the targets directory: a check can name a file shipped beside its target (apt-check.conf).
                commands: CommandRunner(
                    interruptGraceSeconds: Self.interruptGraceSeconds,
                    workingDirectory: paths.targetsDirectory,
                    threadPool: commandPool
                ),
                scratchDirectory: scratch,
                reloadsUnderRoot: self.runReloads
            ),
            store: ApplyStateStore(path: stateDirectory + "/state.json"),
            notifier: notifier,
            logger: logger
        )
        // A targets directory it cannot read stops it (exit 1), as a modules directory stops viper-settingsd: an
        // applier with no targets would look ready and apply nothing.
        await interactor.replace(targets: try loader.load())
        let server = VarlinkServer(
            configuration: VarlinkServerConfiguration(
                endpoint: .path(controlSocket),
                vendor: "viper-settings",
                product: "viper-settings-apply",
                version: ViperSettingsVersion.current,
                url: "https://github.com/viper-settings/viper-settings",
                maximumConnections: Self.maximumConnections,
                maximumConnectionsPerUID: Self.maximumConnectionsPerUID,
                idleTimeout: .seconds(Self.idleTimeoutSeconds),
                limitErrorName: ApplyMethod.tooManyConnections
            ),
            interfaces: [ApplyVarlinkInterface(interactor: interactor)],
            eventLoopGroup: MultiThreadedEventLoopGroup.singleton,
            logger: logger
        )
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [
                    .init(service: server, serviceName: "VarlinkServer"),
                    .init(
                        service: DaemonWatchFollower(
                            socketPath: daemonSocket,
                            interactor: interactor,
                            eventLoopGroup: MultiThreadedEventLoopGroup.singleton,
                            logger: logger
                        ),
                        serviceName: "DaemonWatchFollower"
                    ),
                    .init(
                        service: TargetReloadService(loader: loader, interactor: interactor, notifier: notifier),
                        serviceName: "TargetReloadService"
                    ),
                    .init(service: TargetRetryService(interactor: interactor), serviceName: "TargetRetryService"),
                    .init(service: ApplyPassService(interactor: interactor), serviceName: "ApplyPassService"),
                    .init(
                        service: ApplyReadinessService(
                            server: server,
                            interactor: interactor,
                            patience: .seconds(30),
                            logger: logger
                        ),
                        serviceName: "ApplyReadinessService"
                    ),
                ],
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger
            )
        )
        logger.info(
            "following the settings daemon",
            metadata: [
                "socket": "\(daemonSocket)", "control_socket": "\(controlSocket)", "state_dir": "\(stateDirectory)",
            ]
        )
        try await group.run()
        logger.info("stopped")
    }

    /// The paths these flags give, the others from `environment` or the defaults `--help` shows.
    public func paths(environment: [String: String]) -> ApplyPaths {
        ApplyPaths(
            targetsDirectory: self.targetsDirectory,
            daemonSocket: self.socket,
            stateDirectory: self.stateDirectory,
            controlSocket: self.controlSocket,
            environment: environment
        )
    }
}
