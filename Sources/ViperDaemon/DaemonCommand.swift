public import ArgumentParser
import Foundation
import Logging
import SettingsAPI
import ViperSystemd

/// `viper-settingsd`: parses flags, reads the configuration file, and runs the daemon until SIGTERM or SIGINT.
public struct DaemonCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "viper-settingsd",
        abstract: "Serve typed system settings over Varlink on a Unix socket.",
        discussion: """
            Reads module schemas (NAME.json) from the modules directory, keeps values in durable JSON files in \
            the state directory, and serves the io.viper.settings Varlink interface on a Unix socket. \
            settingsctl is its command-line client.

            Flags override the configuration file (default: $CONFIGURATION_DIRECTORY/viper-settingsd.conf under \
            systemd, else /etc/viper-settings/viper-settingsd.conf when it exists). Stops gracefully on SIGTERM \
            and SIGINT.

            Examples:
              viper-settingsd --config config/viper-settingsd.conf --state-dir .state
              viper-settingsd --modules-dir /etc/viper-settings/modules --socket /tmp/settings.sock --log-level debug
            """,
        version: "viper-settingsd \(ViperSettingsVersion.current)"
    )

    @Option(name: .long, help: ArgumentHelp("The configuration file to read.", valueName: "file"))
    var config: String?

    @Option(name: .long, help: ArgumentHelp("The Unix socket to listen on.", valueName: "path"))
    var socket: String?

    @Option(
        name: .customLong("state-dir"),
        help: ArgumentHelp(
            "Where state files are kept; one daemon at a time (it locks the directory).",
            valueName: "dir"
        )
    )
    var stateDirectory: String?

    @Option(name: .customLong("modules-dir"), help: ArgumentHelp("Where module schemas are read.", valueName: "dir"))
    var modulesDirectory: String?

    @Option(
        name: .customLong("log-level"),
        help: ArgumentHelp("trace, debug, info, notice, warning, error or critical.", valueName: "level")
    )
    var logLevel: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Sync from a remote source: https://host/path.json, http://..., or etcd://host:port[,host:port...]/PREFIX; off disables it.",
            valueName: "url"
        )
    )
    var remote: String?

    public init() {}

    public func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let configuration: DaemonConfiguration
        do {
            configuration = try self.flags.resolve(environment: environment, uid: getuid())
        } catch {
            FileHandle.standardError.write(Data("viper-settingsd: \(error)\n".utf8))
            throw ExitCode(2)
        }
        let useJournal = JournalLogHandler.isConnectedToJournal()
        var logger = Logger(label: "viper-settingsd") { label -> any LogHandler in
            useJournal
                ? JournalLogHandler(identifier: "viper-settingsd") : StreamLogHandler.standardError(label: label)
        }
        logger.logLevel = configuration.logLevel
        let flags = self.flags
        let daemon = Daemon(
            configuration: configuration,
            reloadConfiguration: { try flags.resolve(environment: environment, uid: getuid()) },
            environment: environment,
            logger: logger
        )
        do {
            try await daemon.run()
        } catch let error as ConfigurationError {
            logger.critical("viper-settingsd stopped: \(error)")
            throw ExitCode(2)
        } catch {
            logger.critical("viper-settingsd stopped: \(error)")
            throw ExitCode.failure
        }
    }

    /// The flags, as plain values.
    var flags: DaemonFlags {
        DaemonFlags(
            config: self.config,
            socket: self.socket,
            stateDirectory: self.stateDirectory,
            modulesDirectory: self.modulesDirectory,
            logLevel: self.logLevel,
            remote: self.remote
        )
    }
}
