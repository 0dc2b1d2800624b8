public import ArgumentParser
import Foundation
import Logging
import SettingsAPI
public import ViperCommandLine
import ViperSystemd

/// `viper-settingsd`: parses flags, reads the configuration file, and runs the daemon until SIGTERM or SIGINT.
public struct DaemonCommand: ServiceCommand {
    public static let configuration = CommandConfiguration(
        commandName: "viper-settingsd",
        abstract: "Serve typed system settings over Varlink on a Unix socket.",
        discussion: """
            Reads module schemas (NAME.json) from the modules directory, keeps values in durable JSON files in \
            the state directory, and serves the io.viper.settings Varlink interface on a Unix socket. \
            settingsctl is its command-line client.

            Flags override the configuration file (see --config), whose keys override the defaults; each option \
            below says its default. Relative paths in the file are relative to the file.

            Signals:
              SIGTERM, SIGINT  stop gracefully: for 0.1 s connections already
                               queued are still accepted and calls already
                               sent still answered; then idle connections
                               close, a call in progress may finish for up to
                               5 s.
              SIGHUP           reload the schemas and the configuration keys a
                               reload applies: \(Self.keysAppliedOnReload); a
                               changed key that needs a restart is logged. A
                               configuration with an error is logged and not
                               applied: the daemon goes on with the one it had.
              SIGUSR1, USR2    ignored, as are SIGALRM and SIGPIPE.

            Exit status:
              0  stopped gracefully (SIGTERM, SIGINT), or the one client of a
                 connected socket passed as fd 3 (exec-style activation)
                 left.
              1  a failure: a socket it cannot create or listen on, a modules
                 directory it cannot read, a state directory in use by another
                 viper-settingsd or that it cannot create.
              2  a usage error, or a configuration with an error, in a flag or in
                 the configuration file: a file it cannot read, a value out of
                 range, an unknown key, a key set twice, a line without =, a
                 remote URL it cannot use. The message names the flag, or the
                 file and the key or line.

            Examples:
              viper-settingsd --config config/viper-settingsd.conf \\
                --state-dir .state
              viper-settingsd --modules-dir /etc/viper-settings/modules \\
                --socket /tmp/settings.sock --log-level debug
            """,
        version: "viper-settingsd \(ViperSettingsVersion.current)"
    )

    /// "modules-dir, max-value-size", for the help text.
    private static let keysAppliedOnReload = DaemonConfiguration.keysAppliedOnReload.joined(separator: ", ")

    @Option(
        name: .long,
        help: ArgumentHelp(
            """
            The configuration file to read (default: $CONFIGURATION_DIRECTORY/viper-settingsd.conf under \
            systemd, else /etc/viper-settings/viper-settingsd.conf, each when it exists).
            """,
            valueName: "file"
        )
    )
    var config: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            """
            The Unix socket to listen on when systemd passes none (default: the file's socket, else \
            $RUNTIME_DIRECTORY/io.viper.settings under systemd, /run/viper-settings/io.viper.settings for root \
            or without XDG_RUNTIME_DIR, else $XDG_RUNTIME_DIR/viper-settings/io.viper.settings).
            """,
            valueName: "path"
        )
    )
    var socket: String?

    @Option(
        name: .customLong("state-dir"),
        help: ArgumentHelp(
            """
            Where state files are kept; one daemon at a time (it locks the directory) (default: the file's \
            state-dir, else $STATE_DIRECTORY under systemd, /var/lib/viper-settings for root, else \
            $XDG_STATE_HOME/viper-settings, or ~/.local/state/viper-settings without XDG_STATE_HOME).
            """,
            valueName: "dir"
        )
    )
    var stateDirectory: String?

    @Option(
        name: .customLong("modules-dir"),
        help: ArgumentHelp(
            "Where module schemas are read (default: the file's modules-dir, else /etc/viper-settings/modules).",
            valueName: "dir"
        )
    )
    var modulesDirectory: String?

    @Option(
        name: .customLong("log-level"),
        help: ArgumentHelp(
            """
            trace, debug, info, notice, warning, error or critical (default: the file's log-level, else info).
            """,
            valueName: "level"
        )
    )
    var logLevel: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            """
            Sync from a remote source: https://host/path.json, http://..., or \
            etcd://host:port[,host:port...]/PREFIX; off disables it (default: the file's remote, else off).
            """,
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
            // The message repeats what the file or a flag says: on one line, whatever it holds.
            FileHandle.standardError.write(
                Data((Self.journalPrefixed("viper-settingsd: \(LineLogHandler.escaping("\(error)"))") + "\n").utf8)
            )
            // Started by its socket: the calls waiting would start it again at once, failing the socket unit.
            SocketActivation.closePendingConnections()
            throw ExitCode(2)
        }
        let useJournal = JournalLogHandler.isConnectedToJournal()
        var logger = Logger(label: "viper-settingsd") { label -> any LogHandler in
            useJournal
                ? JournalLogHandler(identifier: "viper-settingsd") : LineLogHandler(label: label)
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
