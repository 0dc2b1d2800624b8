public import ArgumentParser
import Foundation
import Logging
import SettingsAPI

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
        version: ViperSettingsVersion.current
    )

    @Option(name: .long, help: ArgumentHelp("The configuration file to read.", valueName: "file"))
    var config: String?

    @Option(name: .long, help: ArgumentHelp("The Unix socket to listen on.", valueName: "path"))
    var socket: String?

    @Option(name: .customLong("state-dir"), help: ArgumentHelp("Where state files are kept.", valueName: "dir"))
    var stateDirectory: String?

    @Option(name: .customLong("modules-dir"), help: ArgumentHelp("Where module schemas are read.", valueName: "dir"))
    var modulesDirectory: String?

    @Option(
        name: .customLong("log-level"),
        help: ArgumentHelp("trace, debug, info, notice, warning, error or critical.", valueName: "level")
    )
    var logLevel: String?

    public init() {}

    public func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let configuration: DaemonConfiguration
        do {
            configuration = try self.resolve(environment: environment, uid: getuid())
        } catch {
            FileHandle.standardError.write(Data("viper-settingsd: \(error)\n".utf8))
            throw ExitCode(2)
        }
        var logger = Logger(label: "viper-settingsd") { label in StreamLogHandler.standardError(label: label) }
        logger.logLevel = configuration.logLevel
        do {
            try await Daemon(configuration: configuration, logger: logger).run()
        } catch {
            logger.critical("viper-settingsd stopped: \(error)")
            throw ExitCode.failure
        }
    }

    /// Combines flags, the configuration file, the environment and the defaults; flags win.
    func resolve(environment: [String: String], uid: uid_t) throws -> DaemonConfiguration {
        let file = try self.configurationFile(environment: environment)
        let home = environment["HOME"] ?? "/root"
        let defaultState =
            environment["STATE_DIRECTORY"].map { String($0.split(separator: ":").first ?? "") }
            ?? (uid == 0
                ? "/var/lib/viper-settings"
                : "\(environment["XDG_STATE_HOME"] ?? "\(home)/.local/state")/viper-settings")
        let defaultSocket =
            environment["RUNTIME_DIRECTORY"].map { "\(String($0.split(separator: ":").first ?? ""))/io.viper.settings" }
            ?? (uid == 0 || environment["XDG_RUNTIME_DIR"] == nil
                ? "/run/viper-settings/io.viper.settings"
                : "\(environment["XDG_RUNTIME_DIR"]!)/viper-settings/io.viper.settings")
        var configuration = DaemonConfiguration(
            modulesDirectory: self.modulesDirectory ?? file?.pathValue("modules-dir") ?? "/etc/viper-settings/modules",
            stateDirectory: self.stateDirectory ?? file?.pathValue("state-dir") ?? defaultState,
            socketPath: self.socket ?? file?.pathValue("socket") ?? defaultSocket
        )
        if let text = self.logLevel ?? file?.values["log-level"] {
            guard let level = Logger.Level(rawValue: text) else {
                throw ConfigurationError(
                    "log level '\(text)' is not one of trace, debug, info, notice, warning, error, critical"
                )
            }
            configuration.logLevel = level
        }
        if let text = file?.values["max-message-size"] {
            guard let value = Int(text), value >= 1024 else {
                throw ConfigurationError("\(file!.path): max-message-size must be a number of bytes >= 1024")
            }
            configuration.maximumMessageSize = value
        }
        if let text = file?.values["max-connections-per-uid"] {
            guard let value = Int(text), value >= 1 else {
                throw ConfigurationError("\(file!.path): max-connections-per-uid must be a number >= 1")
            }
            configuration.maximumConnectionsPerUID = value
        }
        return configuration
    }

    private func configurationFile(environment: [String: String]) throws -> ConfigurationFile? {
        let path: String
        if let explicit = self.config {
            path = explicit
        } else {
            let directory = environment["CONFIGURATION_DIRECTORY"] ?? "/etc/viper-settings"
            path = "\(directory)/viper-settingsd.conf"
            guard FileManager.default.fileExists(atPath: path) else { return nil }
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigurationError("cannot read the configuration file \(path)")
        }
        return try ConfigurationFile(text: String(decoding: data, as: UTF8.self), path: path)
    }
}
